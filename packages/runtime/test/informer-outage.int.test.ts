/**
 * Informers across API server outages: a reflector that lost the server retries as soon as the server
 * answers again (the transport's probe), not after its backoff, and relists at once after a 410 —
 * twice in a row, with a backoff that alone would keep it away for a minute.
 */
import { randomUUID } from 'node:crypto';
import { useControlPlane } from '@ccm-kit/testing/vitest';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { createClientFactory } from '../src/client/index.js';
import { SharedInformerFactory } from '../src/informers/index.js';
import { createNodes, until, useAdminCore } from './informer-int-helpers.js';

const cp = useControlPlane();

describe('informers across API server outages', () => {
  const core = useAdminCore(cp);

  it('resyncs after each of two kube-apiserver restarts once the server answers, not after the backoff', async () => {
    const id = randomUUID().slice(0, 8);
    const clients = createClientFactory({ kubeConfig: cp().kubeConfig, qps: -1 });
    // A backoff of one minute: converging within the 20 s below needs the early retry.
    const factory = new SharedInformerFactory(clients, { backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 } });
    const inf = factory.forResource<V1Node>({ path: '/api/v1/nodes', labelSelector: `ccm-kit-test=${id}` });
    const ac = new AbortController();
    try {
      factory.start(ac.signal);
      expect(await factory.waitForCacheSync(ac.signal)).toBe(true);
      for (const round of [1, 2]) {
        await cp().restartApiServer({ downMs: 3000 });
        const name = `outage-${id}-${round}`;
        await createNodes(core(), id, [name]);
        const ms = await until(
          () => inf.lister.get(name) !== undefined,
          20_000,
          `round ${round}: the informer sees ${name}`,
        );
        console.log(`round ${round}: in sync ${Math.round(ms)} ms after kube-apiserver was healthy again`);
      }
    } finally {
      ac.abort();
      await factory.shutdown();
      await clients.close();
    }
  });
});

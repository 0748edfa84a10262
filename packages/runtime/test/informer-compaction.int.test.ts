/**
 * A genuine 410 Gone without restarting anything: kube-apiserver runs with `--watch-cache=false`, so
 * watches are served by etcd, and the test compacts etcd's history past the informer's
 * resourceVersion while the informer is partitioned away. On reconnect the watch gets 410, the
 * informer relists, and objects deleted meanwhile arrive as `DeletedFinalStateUnknown` tombstones.
 * Also checks the `restartWatchFrom('1')` test hook against the same server.
 */
import { randomUUID } from 'node:crypto';
import { useControlPlane } from '@ccm-kit/testing/vitest';
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { createClientFactory, patchOptions } from '../src/client/index.js';
import { SharedInformerFactory } from '../src/informers/index.js';
import {
  cacheNames,
  converged,
  counter,
  createNodes,
  recordNodes,
  until,
  useAdminCore,
  viaServer,
} from './informer-int-helpers.js';
import { startTcpProxy } from './informer-tcp-proxy.js';

const cp = useControlPlane({ apiServerFlags: { 'watch-cache': 'false' } });

/** Compacts etcd up to the current revision (through etcd's JSON gateway). */
async function compactEtcd(core: CoreV1Api): Promise<string> {
  const head = (await core.listNamespace({ limit: 1 })).metadata?.resourceVersion ?? '';
  const res = await fetch(`${cp().etcdUrl}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision: head, physical: true }),
  });
  if (!res.ok) throw new Error(`etcd compaction failed: ${res.status} ${await res.text()}`);
  return head;
}

describe('informer relist on 410 Gone (etcd compaction)', () => {
  const core = useAdminCore(cp);

  it('relists after the history was compacted and delivers deletes missed during a partition as tombstones', async () => {
    const id = randomUUID().slice(0, 8);
    const names = ['a', 'b', 'c'].map((x) => `cmp-${id}-${x}`);
    await createNodes(core(), id, names);
    const proxy = await startTcpProxy(cp().server);
    const clients = createClientFactory({ kubeConfig: viaServer(cp().kubeConfig, proxy.url), qps: -1 });
    const factory = new SharedInformerFactory(clients, { backoff: { initialMs: 100, maxMs: 500 } });
    const sel = `ccm-kit-test=${id}`;
    const inf = factory.forResource<V1Node>({ path: '/api/v1/nodes', labelSelector: sel });
    const rec = recordNodes(inf);
    const resource = `/api/v1/nodes?labelSelector=${sel}`;
    const ac = new AbortController();
    try {
      factory.start(ac.signal);
      expect(await factory.waitForCacheSync(ac.signal)).toBe(true);
      expect(cacheNames(inf)).toEqual(names);
      const rvBefore = inf.lastSyncResourceVersion();
      const lists = await counter('ccm_kit_informer_lists_total', { resource });

      proxy.cut();
      await core().deleteNode({ name: names[1] as string });
      await core().patchNode(
        { name: names[2] as string, body: { metadata: { annotations: { changed: 'yes' } } } },
        patchOptions('merge'),
      );
      const d = `cmp-${id}-d`;
      await createNodes(core(), id, [d]);
      const compactedAt = await compactEtcd(core());
      expect(Number(compactedAt)).toBeGreaterThan(Number(rvBefore));
      proxy.restore();

      const ms = await until(() => converged(core(), id, inf), 30_000, 'convergence');
      expect(cacheNames(inf)).toEqual([names[0], names[2], d].sort());
      expect(rec.tombstones).toEqual([names[1]]);
      expect(rec.deletes).toEqual([]);
      expect(inf.lister.get(names[2] as string)?.metadata?.annotations?.changed).toBe('yes');
      expect(rec.adds).toContain(d);
      expect(await counter('ccm_kit_informer_lists_total', { resource })).toBe(lists + 1);
      expect(
        await counter('ccm_kit_informer_watch_errors_total', { resource, reason: 'expired' }),
      ).toBeGreaterThanOrEqual(1);
      expect(Number(inf.lastSyncResourceVersion())).toBeGreaterThanOrEqual(Number(compactedAt));
      console.log(`410 relist: converged ${Math.round(ms)} ms after the partition healed`);
    } finally {
      ac.abort();
      await factory.shutdown();
      await clients.close();
      await proxy.close();
    }
  });

  it('restartWatchFrom("1") provokes the same 410 relist on demand', async () => {
    const id = randomUUID().slice(0, 8);
    await createNodes(core(), id, [`hook-${id}-a`]);
    await compactEtcd(core());
    const clients = createClientFactory({ kubeConfig: cp().kubeConfig, qps: -1 });
    const factory = new SharedInformerFactory(clients, { backoff: { initialMs: 100, maxMs: 500 } });
    const sel = `ccm-kit-test=${id}`;
    const inf = factory.forResource<V1Node>({ path: '/api/v1/nodes', labelSelector: sel });
    const ac = new AbortController();
    try {
      factory.start(ac.signal);
      expect(await factory.waitForCacheSync(ac.signal)).toBe(true);
      const lists = await counter('ccm_kit_informer_lists_total', {
        resource: `/api/v1/nodes?labelSelector=${sel}`,
      });
      inf.restartWatchFrom('1');
      await until(
        async () =>
          (await counter('ccm_kit_informer_lists_total', {
            resource: `/api/v1/nodes?labelSelector=${sel}`,
          })) ===
          lists + 1,
        15_000,
        'relist',
      );
      await createNodes(core(), id, [`hook-${id}-b`]);
      await until(() => converged(core(), id, inf), 15_000, 'convergence after the relist');
    } finally {
      ac.abort();
      await factory.shutdown();
      await clients.close();
    }
  });
});

/**
 * Informers against a real kube-apiserver (watch cache on, the default): the object shape handlers
 * see, and convergence after the API server restarts, including deletes made while the informer was
 * partitioned away.
 */
import { randomUUID } from 'node:crypto';
import { useControlPlane } from '@ccm-kit/testing/vitest';
import type { V1Node } from '@kubernetes/client-node';
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

const cp = useControlPlane();

describe('informers against a real API server', () => {
  const core = useAdminCore(cp);

  it('lists then watches: handlers see one plain-JSON shape (apiVersion/kind, string times, no managedFields)', async () => {
    const id = randomUUID().slice(0, 8);
    await createNodes(core(), id, [`shape-${id}-a`]);
    const clients = createClientFactory({ kubeConfig: cp().kubeConfig });
    const factory = new SharedInformerFactory(clients);
    const inf = factory.forResource<V1Node>({ path: '/api/v1/nodes', labelSelector: `ccm-kit-test=${id}` });
    const seen: V1Node[] = [];
    inf.addEventHandler({ onAdd: (n) => seen.push(n), onUpdate: (_o, n) => seen.push(n) });
    inf.addEventHandler({
      onAdd: () => {
        throw new Error('a broken handler must not disturb the informer');
      },
    });
    const ac = new AbortController();
    try {
      factory.start(ac.signal);
      expect(await factory.waitForCacheSync(ac.signal)).toBe(true);
      await createNodes(core(), id, [`shape-${id}-b`]);
      await core().patchNode(
        { name: `shape-${id}-a`, body: { metadata: { labels: { touched: 'yes' } } } },
        patchOptions('strategic'),
      );
      await until(() => seen.length >= 3, 15_000, 'three notifications');
      for (const n of seen) {
        expect(n.apiVersion).toBe('v1');
        expect(n.kind).toBe('Node');
        expect(typeof n.metadata?.creationTimestamp).toBe('string');
        expect(n.metadata?.managedFields).toBeUndefined();
      }
      expect(seen.map((n) => n.metadata?.name)).toEqual([`shape-${id}-a`, `shape-${id}-b`, `shape-${id}-a`]);
      expect(inf.lister.get(`shape-${id}-a`)?.metadata?.labels?.touched).toBe('yes');
      expect(
        await counter('ccm_kit_informer_handler_errors_total', {
          resource: `/api/v1/nodes?labelSelector=ccm-kit-test=${id}`,
        }),
      ).toBe(2);
    } finally {
      ac.abort();
      await factory.shutdown();
      await clients.close();
    }
  });

  it('converges after the API server restarts, including deletes made while it was partitioned away', async () => {
    const id = randomUUID().slice(0, 8);
    const names = ['a', 'b', 'c'].map((x) => `rst-${id}-${x}`);
    await createNodes(core(), id, names);
    const proxy = await startTcpProxy(cp().server);
    // One informer reaches the API server through a proxy that the test cuts; another connects directly.
    const viaProxy = createClientFactory({ kubeConfig: viaServer(cp().kubeConfig, proxy.url), qps: -1 });
    const direct = createClientFactory({ kubeConfig: cp().kubeConfig, qps: -1 });
    const opts = { backoff: { initialMs: 200, maxMs: 1000 } };
    const f1 = new SharedInformerFactory(viaProxy, opts);
    const f2 = new SharedInformerFactory(direct, opts);
    const sel = { path: '/api/v1/nodes', labelSelector: `ccm-kit-test=${id}` };
    const cut = f1.forResource<V1Node>(sel);
    const plain = f2.forResource<V1Node>(sel);
    const recCut = recordNodes(cut);
    const recPlain = recordNodes(plain);
    const ac = new AbortController();
    try {
      f1.start(ac.signal);
      f2.start(ac.signal);
      expect(await f1.waitForCacheSync(ac.signal)).toBe(true);
      expect(await f2.waitForCacheSync(ac.signal)).toBe(true);

      proxy.cut();
      const t0 = performance.now();
      await cp().restartApiServer({ downMs: 1000 });
      const restartMs = performance.now() - t0;
      // After the restart, while `cut` is still partitioned: delete a, update b, create d.
      await core().deleteNode({ name: names[0] as string });
      await core().patchNode(
        { name: names[1] as string, body: { metadata: { annotations: { v: '2' } } } },
        patchOptions('merge'),
      );
      const d = `rst-${id}-d`;
      await createNodes(core(), id, [d]);
      // The direct informer reconnects by itself (backoff) and converges.
      const directMs = await until(() => converged(core(), id, plain), 30_000, 'direct informer convergence');
      expect(recPlain.deletes.length + recPlain.tombstones.length).toBe(1);

      proxy.restore();
      const cutMs = await until(() => converged(core(), id, cut), 30_000, 'partitioned informer convergence');
      expect(cacheNames(cut)).toEqual([names[1], names[2], d].sort());
      // kube-apiserver 1.36 still resumes the watch from the old resourceVersion after a restart (it
      // reads what its new watch cache lacks from etcd), so the missed delete arrives as a plain delete;
      // with compacted history it would be a 410 and a tombstone (informer-compaction.int.test.ts).
      // Either way it is delivered exactly once.
      expect([...recCut.deletes, ...recCut.tombstones]).toEqual([names[0]]);
      expect(recCut.adds).toContain(d);
      expect(cut.lister.get(names[1] as string)?.metadata?.annotations?.v).toBe('2');

      // Still live afterwards: a later delete arrives by watch, as a plain delete.
      await core().deleteNode({ name: d });
      await until(() => !cut.lister.get(d) && !plain.lister.get(d), 15_000, 'delete after recovery');
      expect([...recCut.deletes, ...recCut.tombstones]).toEqual([names[0], d]);
      console.log(
        `restartApiServer ${Math.round(restartMs)} ms; direct informer converged ${Math.round(directMs)} ms after the writes; partitioned one ${Math.round(cutMs)} ms after restore`,
      );
    } finally {
      ac.abort();
      await Promise.all([f1.shutdown(), f2.shutdown()]);
      await viaProxy.close();
      await direct.close();
      await proxy.close();
    }
  });
});

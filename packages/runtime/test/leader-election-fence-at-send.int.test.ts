/**
 * The lease fence at the moment of the write (decision 0050) against a real kube-apiserver, over the shared
 * transport's `node:http2` connection (kube-apiserver speaks HTTP/2 over TLS): a write that passed the early check and
 * whose process is deposed before the write leaves is not written — the object does not exist afterwards.
 */
import { useControlPlane } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createClientFactory } from '../src/client/index.js';
import { isLeaseFencedError } from '../src/leader-election/index.js';
import { leaseWriteGuard, clientFactoryTransport } from '../src/internal.js';

const cp = useControlPlane();

describe('lease fence at send against a real API server', () => {
  it('a write deposed between the early check and the write never reaches kube-apiserver', async () => {
    const clients = createClientFactory({ kubeConfig: cp().kubeConfig, qps: -1 });
    const state = { fenced: false };
    const guard = leaseWriteGuard(() => ({
      isFenced: () => state.fenced,
      validForMs: () => (state.fenced ? 0 : 60_000),
      describe: () => 'kube-system/ccm',
    }));
    clientFactoryTransport(clients).setWriteGuard((method, url) => {
      guard(method, url);
      if (method === 'POST') state.fenced = true; // deposed right after the early check passed
    });
    const path = '/api/v1/namespaces/default/configmaps';
    const body = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    try {
      // Warm the connection so the write is not held up by a connect.
      const warm = await clientFactoryTransport(clients).request(path, 'fence-test');
      expect(warm.status).toBe(200);
      // The node:http2 write path: the body is a stream of the transport's HTTP/2 session.
      expect((warm.body as { session?: { alpnProtocol?: string } }).session?.alpnProtocol).toBe('h2');
      await warm.cancel();
      const err = await clientFactoryTransport(clients)
        .request(path, 'fence-test', {
          method: 'POST',
          body: body('fenced-write'),
          headers: { 'content-type': 'application/json' },
        })
        .catch((e: unknown) => e);
      expect(isLeaseFencedError(err)).toBe(true);
      expect((await clientFactoryTransport(clients).request(`${path}/fenced-write`, 'fence-test')).status).toBe(404);

      // Once the fence opens, writes go out on the same transport.
      clientFactoryTransport(clients).setWriteGuard(guard);
      state.fenced = false;
      const ok = await clientFactoryTransport(clients).request(path, 'fence-test', {
        method: 'POST',
        body: body('after-renewal'),
        headers: { 'content-type': 'application/json' },
      });
      expect(ok.status).toBe(201);
      await ok.cancel();
    } finally {
      await clients.close();
    }
  });
});

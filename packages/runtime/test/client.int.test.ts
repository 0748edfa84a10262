/**
 * The client factory against a real kube-apiserver over TLS: connections are pooled (one TLS
 * handshake serves many requests), unlike client-node's default client, which opens one per request.
 */
import diagnostics from 'node:diagnostics_channel';
import { useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { metricsRegistry } from '../src/index.js';
import { createClientFactory, isNotFound, patchOptions, statusCode } from '../src/client/index.js';
import { clientFactoryTransport } from '../src/internal.js';

const cp = useControlPlane();

/** Counts TCP client sockets created by this process (Node's `net.client.socket` channel). */
function socketCounter() {
  let n = 0;
  const onSocket = () => {
    n++;
  };
  diagnostics.subscribe('net.client.socket', onSocket);
  return {
    get count() {
      return n;
    },
    stop: () => diagnostics.unsubscribe('net.client.socket', onSocket),
  };
}

describe('client factory against a real API server', () => {
  it('reuses TLS connections: 50 sequential + 50 parallel requests open only a few', async () => {
    const clients = createClientFactory({ kubeConfig: cp().kubeConfig, qps: -1 });
    const sockets = socketCounter();
    try {
      const core = clients.client('reuse', CoreV1Api);
      for (let i = 0; i < 50; i++) await core.listNamespace({ limit: 1 });
      const sequential = sockets.count;
      await Promise.all(Array.from({ length: 50 }, () => core.listNamespace({ limit: 1 })));
      const total = sockets.count;
      console.log(
        `ccm-kit factory: 50 sequential requests opened ${sequential} sockets, +50 parallel: ${total} in all`,
      );
      expect(clientFactoryTransport(clients).connectionsOpened).toBe(total);
      expect(sequential).toBeLessThanOrEqual(2);
      expect(total).toBeLessThan(60);
    } finally {
      sockets.stop();
      await clients.close();
    }
  });

  it('for comparison: client-node makeApiClient opens a connection per request', async () => {
    const sockets = socketCounter();
    try {
      const core = cp().kubeConfig.makeApiClient(CoreV1Api);
      for (let i = 0; i < 20; i++) await core.listNamespace({ limit: 1 });
      console.log(`client-node makeApiClient: 20 sequential requests opened ${sockets.count} sockets`);
      expect(sockets.count).toBeGreaterThanOrEqual(15);
    } finally {
      sockets.stop();
    }
  });

  it('patches with each content type, maps errors and counts requests by code', async () => {
    const clients = createClientFactory({ kubeConfig: cp().kubeConfig });
    try {
      const core = clients.client('patcher', CoreV1Api);
      await core.createNode({ body: { metadata: { name: 'client-int-node' } } });
      await core.patchNode(
        { name: 'client-int-node', body: { metadata: { labels: { a: '1' } } } },
        patchOptions('strategic'),
      );
      await core.patchNode(
        { name: 'client-int-node', body: { metadata: { labels: { b: '2' } } } },
        patchOptions('merge'),
      );
      await core.patchNode(
        { name: 'client-int-node', body: [{ op: 'add', path: '/metadata/labels/c', value: '3' }] },
        patchOptions('json'),
      );
      await core.patchNode(
        {
          name: 'client-int-node',
          fieldManager: 'ccm-kit-test',
          force: true,
          body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'client-int-node', labels: { d: '4' } } },
        },
        patchOptions('apply'),
      );
      const n = await core.readNode({ name: 'client-int-node' });
      expect(n.metadata?.labels).toMatchObject({ a: '1', b: '2', c: '3', d: '4' });
      const err = await core.readNode({ name: 'no-such-node' }).catch((e: unknown) => e);
      expect(isNotFound(err)).toBe(true);
      expect(statusCode(err)).toBe(404);
      const text = await metricsRegistry.metrics();
      const host = new URL(cp().server).host;
      expect(text).toContain(`rest_client_requests_total{code="404",host="${host}",method="GET"}`);
      expect(text).toMatch(
        new RegExp(
          `rest_client_requests_total\\{code="200",host="${host.replace(/\./g, '\\.')}",method="PATCH"\\} [4-9]`,
        ),
      );
    } finally {
      await clients.close();
    }
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  addOrUpdateTaintOnNode,
  nodeClientFromCoreV1Api,
  serviceStatusClientFromCoreV1Api,
  TAINT_NODE_SHUTDOWN,
} from '@ccm-kit/cloud-provider';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Seen {
  method: string;
  url: string;
  contentType?: string;
  body: string;
}

describe('client-node adapters (against a loopback HTTP server)', () => {
  let server: Server;
  let api: CoreV1Api;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          contentType: req.headers['content-type'],
          body,
        });
        res.setHeader('content-type', 'application/json');
        if (req.url?.startsWith('/api/v1/nodes/')) {
          res.end(
            JSON.stringify({
              apiVersion: 'v1',
              kind: 'Node',
              metadata: { name: 'n1', resourceVersion: '11' },
            }),
          );
        } else {
          res.end(JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's1', namespace: 'ns1' } }));
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    api = kc.makeApiClient(CoreV1Api);
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('nodeClientFromCoreV1Api reads with resourceVersion=0 when asked and patches as strategic merge', async () => {
    seen.length = 0;
    const client = nodeClientFromCoreV1Api(api);
    await addOrUpdateTaintOnNode(client, 'n1', [{ key: TAINT_NODE_SHUTDOWN, effect: 'NoSchedule' }]);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /api/v1/nodes/n1?resourceVersion=0',
      'PATCH /api/v1/nodes/n1',
    ]);
    expect(seen[1]?.contentType).toBe('application/strategic-merge-patch+json');
    expect(seen[1]?.body).toBe(
      `{"metadata":{"resourceVersion":"11"},"spec":{"taints":[{"effect":"NoSchedule","key":"${TAINT_NODE_SHUTDOWN}"}]}}`,
    );
    seen.length = 0;
    await client.getNode('n1');
    expect(seen.map((s) => s.url)).toEqual(['/api/v1/nodes/n1']);
  });

  it('serviceStatusClientFromCoreV1Api patches the status subresource, keeping nulls', async () => {
    seen.length = 0;
    const client = serviceStatusClientFromCoreV1Api(api);
    const got = await client.patchServiceStatus('ns1', 's1', { metadata: { finalizers: null } });
    expect(got.metadata?.name).toBe('s1');
    expect(seen).toEqual([
      {
        method: 'PATCH',
        url: '/api/v1/namespaces/ns1/services/s1/status',
        contentType: 'application/strategic-merge-patch+json',
        body: '{"metadata":{"finalizers":null}}',
      },
    ]);
  });
});

/**
 * Workload.reassertNodeStatus after the faults: every kubelet reports again, including on a Node whose delete by
 * the harness failed during a fault (it still exists, perhaps Ready on a machine since stopped).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MockCloudApiServer } from '@ccm-kit/example-mockcloud/api-server';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { Workload } from '../src/workload.ts';

describe('Workload.reassertNodeStatus', () => {
  const server = createServer();
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reports Ready as each machine runs, on Nodes the harness failed to delete too; a Node gone is skipped', async () => {
    const patched = new Map<string, string>();
    server.on('request', (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const name = /\/api\/v1\/nodes\/([^/]+)\/status$/.exec(req.url ?? '')?.[1] ?? '';
        if (req.method !== 'PATCH' || name === 'node-3') {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"kind":"Status","code":404}');
          return;
        }
        const ready = (JSON.parse(body) as { status: { conditions: { status: string }[] } }).status.conditions[0]!;
        patched.set(name, ready.status);
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"metadata":{"name":"${name}"}}`);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser(
      { name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
      { name: 'u' },
    );
    const workload = new Workload(kc, {} as MockCloudApiServer);
    // node-1: stopped, and the harness's delete of its Node failed (the API server was down); node-2: running;
    // node-3: its Node deleted (the server answers 404).
    workload.machines.set('node-1', { name: 'node-1', id: 'a', state: 'off', nodeDeleted: true });
    workload.machines.set('node-2', { name: 'node-2', id: 'b', state: 'running', nodeDeleted: false });
    workload.machines.set('node-3', { name: 'node-3', id: 'c', state: 'off', nodeDeleted: true });

    await workload.reassertNodeStatus();

    expect(Object.fromEntries(patched)).toEqual({ 'node-1': 'False', 'node-2': 'True' });
  });
});

/**
 * End to end: ccm-kit's cloud-controller-manager (in process) with the `local` provider from the registry,
 * against a real kube-apiserver. Nodes are initialized from the inventory; a LoadBalancer Service gets an
 * address from the pool and real HTTP traffic flows through the proxy to "node ports" served on 127.0.1.x;
 * inventory edits shut a node down and then delete it; deleting the Service stops its listener.
 */

import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createServer as httpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TAINT_EXTERNAL_CLOUD_PROVIDER, TAINT_NODE_SHUTDOWN } from '@ccm-kit/cloud-provider';
import { isGone } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ANNOTATION_ALLOCATED_IPS } from '../src/annotations.js';
import { registerNodes, startLocalManager } from './cluster.js';
import { freePort, get } from './net.js';

const cp = useControlPlane();
let dir: string;
const servers: Server[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccm-local-e2e-'));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await rm(dir, { recursive: true, force: true });
});

function inventory(stateB: string): string {
  return `machines:
  - name: node-a
    addresses: [{ type: InternalIP, address: 127.0.1.1 }, { type: Hostname, address: node-a }]
    zone: zone-1
    region: region-1
    instanceType: small
    additionalLabels: { example.com/rack: r1 }
  - name: node-b
    addresses: [{ type: InternalIP, address: 127.0.1.2 }]
    zone: zone-2
    region: region-1
    state: ${stateB}
`;
}

/** Replaces the inventory atomically, as the README recommends. */
async function writeInventory(text: string): Promise<void> {
  const tmp = join(dir, 'inventory.yaml.tmp');
  await writeFile(tmp, text);
  await rename(tmp, join(dir, 'inventory.yaml'));
}

async function nodeServer(name: string, ip: string, port: number): Promise<void> {
  const server = httpServer((_req, res) => res.end(name));
  await new Promise<void>((r) => server.listen(port, ip, r));
  servers.push(server);
}

it('initializes nodes, serves a LoadBalancer Service through the proxy, follows inventory edits', async () => {
  await writeInventory(inventory('running'));
  const configPath = join(dir, 'cloud.yaml');
  await writeFile(
    configPath,
    `clusterID: e2e
inventory: ${join(dir, 'inventory.yaml')}
inventoryPollInterval: 200ms
healthCheckInterval: 200ms
drainTimeout: 0s
pools:
  - name: global
    addresses: [127.0.4.0/24]
`,
  );
  const ccm = await startLocalManager(configPath, cp().kubeConfig, {
    argv: [
      '--node-monitor-period=1s',
      // node-ipam-controller on: the Nodes register without Pod CIDRs and get one each.
      '--controllers=*,node-ipam-controller',
      '--allocate-node-cidrs=true',
      '--cluster-cidr=10.244.0.0/16',
    ],
  });
  const api = cp().kubeConfig.makeApiClient(CoreV1Api);
  try {
    await registerNodes(api, [
      ['node-a', 'True'],
      ['node-b', 'False'],
    ]);
    const podCIDRs = await eventuallyValue(async () => {
      const cidrs = await Promise.all(
        ['node-a', 'node-b'].map(async (name) => (await api.readNode({ name })).spec?.podCIDRs),
      );
      return cidrs.every((c) => c?.length === 1) ? cidrs.map((c) => c![0]!) : undefined;
    }, 'Pod CIDRs for both Nodes');
    expect(podCIDRs.every((c) => c.startsWith('10.244.') && c.endsWith('/24'))).toBe(true);
    expect(new Set(podCIDRs).size).toBe(2);

    // The cloud-node controller initializes both Nodes from the inventory.
    const nodeA = await eventuallyValue(async () => {
      const n = await api.readNode({ name: 'node-a' });
      // Initialization writes the providerID (PUT) and then the addresses (status patch), as upstream.
      return n.spec?.providerID && n.status?.addresses?.length ? n : undefined;
    }, 'node-a initialized');
    expect(nodeA.spec?.providerID).toBe('local://node-a');
    expect(nodeA.metadata?.labels).toMatchObject({
      'topology.kubernetes.io/zone': 'zone-1',
      'topology.kubernetes.io/region': 'region-1',
      'node.kubernetes.io/instance-type': 'small',
      'example.com/rack': 'r1',
    });
    expect(nodeA.status?.addresses).toEqual([
      { type: 'InternalIP', address: '127.0.1.1' },
      { type: 'Hostname', address: 'node-a' },
    ]);
    expect((nodeA.spec?.taints ?? []).some((t) => t.key === TAINT_EXTERNAL_CLOUD_PROVIDER)).toBe(false);
    await eventuallyValue(async () => (await api.readNode({ name: 'node-b' })).spec?.providerID, 'node-b initialized');

    // A LoadBalancer Service: an address from the pool, recorded on the Service, traffic through the proxy.
    const port = await freePort('127.0.4.1');
    await api.createNamespace({ body: { metadata: { name: 'e2e' } } });
    const created = await api.createNamespacedService({
      namespace: 'e2e',
      body: { metadata: { name: 'web' }, spec: { type: 'LoadBalancer', ports: [{ port, protocol: 'TCP' }] } },
    });
    const nodePort = created.spec?.ports?.[0]?.nodePort as number;
    await nodeServer('a', '127.0.1.1', nodePort);
    await nodeServer('b', '127.0.1.2', nodePort);
    const svc = await eventuallyValue(async () => {
      const s = await api.readNamespacedService({ namespace: 'e2e', name: 'web' });
      return s.status?.loadBalancer?.ingress?.length ? s : undefined;
    }, 'the load-balancer status');
    expect(svc.status?.loadBalancer?.ingress).toEqual([{ ip: '127.0.4.1', ipMode: 'VIP' }]);
    expect(svc.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBe('127.0.4.1');
    const answers = new Set<string>();
    for (let i = 0; i < 4; i++) answers.add(await get('127.0.4.1', port));
    expect(answers).toEqual(new Set(['a', 'b']));

    // Inventory edits: node-b stopped -> shutdown taint; absent -> the Node is deleted, and leaves the LB.
    await writeInventory(inventory('stopped'));
    await eventuallyValue(
      async () =>
        ((await api.readNode({ name: 'node-b' })).spec?.taints ?? []).some((t) => t.key === TAINT_NODE_SHUTDOWN),
      'the shutdown taint on node-b',
    );
    await writeInventory(inventory('absent'));
    await eventuallyValue(() => isGone(api.readNode({ name: 'node-b' })), 'node-b deleted');
    await eventuallyValue(async () => {
      const seen = new Set<string>();
      for (let i = 0; i < 4; i++) seen.add(await get('127.0.4.1', port));
      return seen.size === 1 && seen.has('a');
    }, 'traffic only to node-a');

    // Deleting the Service stops the listener and clears the record.
    await api.deleteNamespacedService({ namespace: 'e2e', name: 'web' });
    await eventuallyValue(async () => {
      try {
        await get('127.0.4.1', port);
        return false;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'ECONNREFUSED';
      }
    }, 'the listener to stop');
    // The finalizer goes once the record is cleared and the address released.
    await eventuallyValue(
      () => isGone(api.readNamespacedService({ namespace: 'e2e', name: 'web' })),
      'the Service to be gone',
    );
  } finally {
    await ccm.stop();
    await ccm.done;
  }
}, 120_000);

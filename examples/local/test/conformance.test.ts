/**
 * The ccm-kit provider conformance suite against the local provider: an inventory file in a temp dir
 * (running, stopped and absent machines), address pools without a data plane, and an in-memory Service
 * store that a test can take down (the load balancer's only remote dependency). Instances come from the
 * file, so the outage covers the load balancer only.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ProviderFixture, RecordingEventRecorder } from '@ccm-kit/testing';
import { describeProviderConformance } from '@ccm-kit/testing/vitest';
import type { V1Service } from '@kubernetes/client-node';
import type { ServiceStore } from '../src/allocation-store.js';
import { parseConfig } from '../src/config.js';
import { InventoryWatcher } from '../src/inventory-watcher.js';
import { LocalCloud } from '../src/provider.js';
import { apiError, FakeServiceStore, lbService } from './fakes.js';

const INVENTORY = `
machines:
  - name: node-a
    addresses: [{ type: InternalIP, address: 10.0.0.11 }, { type: Hostname, address: node-a }]
    zone: zone-1
    region: region-1
    instanceType: small
  - name: node-b
    addresses: [{ type: InternalIP, address: 10.0.0.12 }]
  - name: node-stopped
    addresses: [{ type: InternalIP, address: 10.0.0.13 }]
    state: stopped
  - name: node-gone
    state: absent
`;

/** A Service store that honours AbortSignals, like the API client, and fails with 503 while `down`. */
class BreakableStore implements ServiceStore {
  readonly inner = new FakeServiceStore();
  down = false;

  #check(signal?: AbortSignal): void {
    signal?.throwIfAborted();
    if (this.down) throw apiError(503, 'ServiceUnavailable');
  }
  async list(signal?: AbortSignal): Promise<V1Service[]> {
    this.#check(signal);
    return this.inner.list();
  }
  async get(namespace: string, name: string, signal?: AbortSignal): Promise<V1Service | undefined> {
    this.#check(signal);
    return this.inner.get(namespace, name);
  }
  async patchAnnotations(
    service: V1Service,
    annotations: Record<string, string | null>,
    signal?: AbortSignal,
  ): Promise<V1Service> {
    this.#check(signal);
    return this.inner.patchAnnotations(service, annotations);
  }
}

interface LocalFixture extends ProviderFixture {
  cloud: LocalCloud;
  store: BreakableStore;
}

async function setup(): Promise<LocalFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'ccm-local-conformance-'));
  const inventoryPath = join(dir, 'inventory.yaml');
  await writeFile(inventoryPath, INVENTORY);
  const config = parseConfig(`
clusterID: conformance
inventory: ${inventoryPath}
dataPlane: none
pools:
  - name: global
    addresses: [127.0.2.1-127.0.2.8]
`);
  const store = new BreakableStore();
  const cloud = new LocalCloud({
    config,
    inventory: await InventoryWatcher.open(inventoryPath),
    store,
    recorder: new RecordingEventRecorder(),
  });
  return {
    cloud,
    store,
    existingNode: { metadata: { name: 'node-a' } },
    missingNode: { metadata: { name: 'node-gone' }, spec: { providerID: 'local://node-gone' } },
    stoppedNode: { metadata: { name: 'node-stopped' }, spec: { providerID: 'local://node-stopped' } },
    breakCloud: () => {
      store.down = true;
    },
    healCloud: () => {
      store.down = false;
    },
    listCloudLoadBalancers: () => cloud.localLoadBalancer.ipam.entries().map(([uid]) => uid),
    teardown: async () => {
      await cloud.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describeProviderConformance<LocalFixture>({
  name: 'local',
  setup,
  outageFacets: ['loadBalancer'],
  loadBalancer: {
    service: (fx, seq) => fx.store.inner.put(lbService(`conformance-${seq}`)),
    nodes: () => [
      { metadata: { name: 'node-a' }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.11' }] } },
      { metadata: { name: 'node-b' }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.12' }] } },
    ],
  },
  facets: ['instancesV2', 'loadBalancer'],
});

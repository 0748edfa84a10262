/** The FakeCloud conformance fixture: a running, a stopped and a deleted machine, the outage by error injection. */
import { FakeCloud, kubeletNode, type ProviderFixture } from '@ccm-kit/testing';
import type { V1Node } from '@kubernetes/client-node';

/** A Node with no taints and the providerID given (the kit's `kubeletNode`); the FakeCloud tests share it. */
export const node = (name: string, providerID?: string): V1Node =>
  kubeletNode(name, { taints: [], ...(providerID !== undefined && { providerID }) });

/** A FakeCloud with a running, a stopped and a deleted machine. */
export function fakeCloudFixture(): ProviderFixture & { cloud: FakeCloud } {
  const cloud = new FakeCloud({
    enableInstancesV2: true,
    provider: 'fake',
    disableLoadBalancers: true,
    disableRoutes: true,
  });
  cloud.setInstance('node-a', {
    providerID: 'fake://i-a',
    addresses: [
      { type: 'InternalIP', address: '10.0.0.7' },
      { type: 'Hostname', address: 'node-a' },
    ],
    instanceType: 'm5.large',
    zone: 'z1',
    region: 'r1',
  });
  cloud.setInstance('node-stopped', {
    providerID: 'fake://i-s',
    addresses: [{ type: 'InternalIP', address: '10.0.0.8' }],
    shutdown: true,
  });
  cloud.setInstance('node-gone', { providerID: 'fake://i-gone', exists: false });
  return {
    cloud,
    existingNode: node('node-a'),
    missingNode: node('node-gone', 'fake://i-gone'),
    stoppedNode: node('node-stopped', 'fake://i-s'),
    breakCloud: () => {
      cloud.faults.injectError('*', {});
    },
    healCloud: () => {
      cloud.faults.clear();
    },
  };
}

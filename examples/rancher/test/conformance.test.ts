/**
 * The ccm-kit provider conformance suite against the rancher provider and the fake Cattle API, twice:
 * - Nodes that carry their providerID, with an outage (every request answers 503);
 * - a new Node found by name, without an outage: by name, the host cache answers `instanceID` while the API fails
 *   (the original's TTL store, kept on purpose; it only ever answers "this host", never "not found"), which the
 *   `instances/outage` check forbids.
 */
import { type ProviderFixture } from '@ccm-kit/testing';
import { describeProviderConformance } from '@ccm-kit/testing/vitest';
import type { V1Node } from '@kubernetes/client-node';
import type { FakeCattle } from '../src/fake-cattle/index.js';
import { cloudOn, node, startFast } from './helpers.js';

interface RancherFixture extends ProviderFixture {
  api: FakeCattle;
}

async function setup(existingNode: V1Node, outage: boolean): Promise<RancherFixture> {
  const api = await startFast();
  api.state.addHost({ hostname: 'node-a', uuid: 'ua', addresses: ['10.0.0.1'] });
  api.state.addHost({ hostname: 'node-b.example.com', uuid: 'ub', addresses: ['10.0.0.2'] });
  return {
    api,
    cloud: cloudOn(api).cloud,
    existingNode,
    missingNode: node('ghost', 'rancher://ghost-uuid'),
    ...(outage ? { breakCloud: () => api.failWith(503), healCloud: () => api.failWith(undefined) } : {}),
    listCloudLoadBalancers: () => api.state.list('loadBalancerService').map((lb) => lb.id),
    teardown: () => api.close(),
  };
}

const loadBalancer = { nodes: () => [node('node-a', 'rancher://ua'), node('node-b.example.com', 'rancher://ub')] };

describeProviderConformance<RancherFixture>({
  name: 'rancher, Nodes with providerID, outage: every request 503',
  setup: () => setup(node('node-a', 'rancher://ua'), true),
  loadBalancer,
  facets: ['instances', 'loadBalancer'],
});

describeProviderConformance<RancherFixture>({
  name: 'rancher, a new Node found by name',
  setup: () => setup(node('NODE-A.example.com'), false),
  loadBalancer,
  facets: ['instances', 'loadBalancer'],
});

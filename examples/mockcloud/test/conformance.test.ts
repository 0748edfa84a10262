/**
 * The ccm-kit provider conformance suite against the mockcloud provider and its in-process API server:
 * a running, a stopped and a missing server, load balancers that provision for a moment (RetryError),
 * and two kinds of outage — a revoked token (401, the "Node deleted on an auth error" case) and every
 * request answering 503.
 */
import { type ProviderFixture, RecordingLogger } from '@ccm-kit/testing';
import { describeProviderConformance } from '@ccm-kit/testing/vitest';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import { MockCloudProvider } from '../src/index.js';
import { FakeServiceClient, node, startApi, TOKEN, testConfig } from './helpers.js';

interface MockCloudFixture extends ProviderFixture {
  api: MockCloudApiServer;
}

const OUTAGES = {
  'revoked token (401)': {
    start: (api: MockCloudApiServer) => api.revokeToken(TOKEN),
    end: (api: MockCloudApiServer) => api.addToken(TOKEN),
  },
  'every request 503': {
    start: (api: MockCloudApiServer) => api.injectFault({ status: 503 }),
    end: (api: MockCloudApiServer) => api.clearFaults(),
  },
};

async function setup(outage: keyof typeof OUTAGES): Promise<MockCloudFixture> {
  const api = await startApi({ provisioningDelayMs: 30 });
  // node-a is found by name (a new Node without providerID); the load balancer targets both running servers.
  api.state.addServer({ name: 'node-a', zone: 'eu-1a', region: 'eu-1', type: 'cx22' });
  api.state.addServer({ name: 'node-b', zone: 'eu-1b', region: 'eu-1', type: 'cx22' });
  const stopped = api.state.addServer({ name: 'node-stopped', status: 'off' });
  const cloud = new MockCloudProvider(testConfig(api, 'loadBalancer: { provisioningRetryMs: 20 }'), {
    serviceClient: new FakeServiceClient(),
    logger: new RecordingLogger(),
  });
  const { start, end } = OUTAGES[outage];
  return {
    api,
    cloud,
    existingNode: node('node-a'),
    missingNode: node('ghost', 'mockcloud://srv-999999'),
    stoppedNode: node('node-stopped', `mockcloud://${stopped.id}`),
    breakCloud: () => start(api),
    healCloud: () => end(api),
    listCloudLoadBalancers: () => api.state.listLoadBalancers().map((lb) => lb.id),
    teardown: () => api.close(),
  };
}

for (const outage of Object.keys(OUTAGES) as (keyof typeof OUTAGES)[]) {
  describeProviderConformance<MockCloudFixture>({
    name: `mockcloud, outage: ${outage}`,
    setup: () => setup(outage),
    loadBalancer: {
      nodes: (fx) =>
        fx.api.state
          .listServers()
          .filter((s) => s.status === 'running')
          .map((s) => node(s.name, `mockcloud://${s.id}`)),
    },
    facets: ['instancesV2', 'loadBalancer', 'routes'],
  });
}

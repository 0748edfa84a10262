/**
 * The ccm-kit provider conformance suite against the minimal provider: a static machine table and an
 * address-handing load balancer. There is no cloud API, so there is no outage to simulate.
 */
import { describeProviderConformance } from '@ccm-kit/testing/vitest';
import { MinimalCloud, parseConfig } from '../src/provider.js';

const CONFIG = `
machines:
  - { name: node-a, id: a1, zone: zone-1, region: region-1, type: small, address: 10.0.0.11 }
  - { name: node-b, id: b1, zone: zone-1, region: region-1, type: small, address: 10.0.0.12 }
loadBalancerAddresses: [203.0.113.10, 203.0.113.11, 203.0.113.12, 203.0.113.13]
`;

describeProviderConformance({
  name: 'minimal',
  setup: () => ({
    cloud: new MinimalCloud(parseConfig(CONFIG)),
    existingNode: { metadata: { name: 'node-a' } },
    missingNode: { metadata: { name: 'ghost' }, spec: { providerID: 'minimal://gone' } },
  }),
  loadBalancer: {
    nodes: () => [
      { metadata: { name: 'node-a' }, spec: { providerID: 'minimal://a1' } },
      { metadata: { name: 'node-b' }, spec: { providerID: 'minimal://b1' } },
    ],
  },
  facets: ['instancesV2', 'loadBalancer'],
});

/**
 * The conformance suite against FakeCloud's instance table (InstancesV2, Instances v1, Zones), with the
 * outage made by FakeCloud's error injection. FakeCloud's load balancer and routes keep upstream's fake
 * semantics, which the contract checks reject; conformance-checks.test.ts pins those two findings.
 */
import { describeProviderConformance } from '@ccm-kit/testing/vitest';
import { fakeCloudFixture, node } from './fake-cloud-fixture.js';

describeProviderConformance({
  name: 'FakeCloud (instance table)',
  setup: fakeCloudFixture,
  facets: ['instancesV2', 'instances', 'zones'],
});

describeProviderConformance({
  name: 'FakeCloud (initialized Nodes)',
  setup: () => {
    const fx = fakeCloudFixture();
    return { ...fx, existingNode: node('node-a', 'fake://i-a'), missingNode: node('node-gone') };
  },
});

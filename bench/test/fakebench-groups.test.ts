import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { FakeBench } from '../fakebench.ts';
import { CloudConflictError, GROUP_LABEL } from '../fakebench-groups.ts';

const service = (name: string, group?: string): V1Service => ({
  metadata: { name, namespace: 'bench', uid: `uid-${name}`, ...(group ? { labels: { [GROUP_LABEL]: group } } : {}) },
  spec: { type: 'LoadBalancer' },
});

// The same cases as bench/upstream-ccm/groups_test.go.
describe('fakebench load-balancer groups', () => {
  it('refuses an overlapping call on one group with a 409 and counts it; other groups and no group run', async () => {
    const fake = new FakeBench(50);
    const first = fake.ensureLoadBalancer('k', service('a', 'g1'), []);
    const overlapping = await fake.ensureLoadBalancer('k', service('b', 'g1'), []).catch((e: unknown) => e);
    expect(overlapping).toBeInstanceOf(CloudConflictError);
    expect((overlapping as CloudConflictError).status).toBe(409);
    await fake.ensureLoadBalancer('k', service('c', 'g2'), []);
    await fake.ensureLoadBalancer('k', service('d'), []);
    await first;
    await fake.ensureLoadBalancer('k', service('b', 'g1'), []); // free again
    const counters = fake.snapshot();
    expect(counters.conflicts).toBe(1);
    expect(counters.loadBalancers).toBe(4);
    expect(counters.calls.EnsureLoadBalancer).toBe(5); // the refused call is counted too
  });

  it('offers loadBalancerGroup only with FAKEBENCH_GROUPS=1, and names a bad value', () => {
    expect(FakeBench.fromEnv({}).loadBalancerGroup).toBeUndefined();
    const grouped = FakeBench.fromEnv({ FAKEBENCH_GROUPS: '1' });
    expect(grouped.loadBalancerGroup?.('k', service('a', 'g3'))).toBe('g3');
    expect(grouped.loadBalancerGroup?.('k', service('a'))).toBeUndefined();
    expect(() => FakeBench.fromEnv({ FAKEBENCH_GROUPS: 'yes' })).toThrow(/FAKEBENCH_GROUPS must be 0 or 1, got "yes"/);
  });
});

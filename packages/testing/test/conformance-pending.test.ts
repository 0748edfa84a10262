/**
 * `pendingNotImplemented`: a freshly scaffolded provider, whose methods are stubs throwing
 * NotImplementedError, gets pending checks, not passes and not failures.
 */
import {
  type CloudProvider,
  defaultLoadBalancerName,
  type InstancesV2,
  type LoadBalancer,
  NotImplementedError,
} from '@ccm-kit/cloud-provider';
import { describe, expect, it } from 'vitest';
import { planProviderConformance, trackStubs } from '../src/conformance/index.js';

const stub = (method: string) => () => Promise.reject(new NotImplementedError(`${method} not implemented`));

class StubCloud implements CloudProvider {
  providerName = () => 'stubcloud';
  hasClusterID = () => true;
  instancesV2 = (): InstancesV2 => ({
    instanceExists: stub('instanceExists'),
    instanceShutdown: stub('instanceShutdown'),
    instanceMetadata: stub('instanceMetadata'),
  });
  loadBalancer = (): LoadBalancer => ({
    getLoadBalancer: stub('getLoadBalancer'),
    getLoadBalancerName: (_cluster, service) => defaultLoadBalancerName(service),
    ensureLoadBalancer: stub('ensureLoadBalancer'),
    updateLoadBalancer: stub('updateLoadBalancer'),
    ensureLoadBalancerDeleted: stub('ensureLoadBalancerDeleted'),
  });
}

async function outcomes(pendingNotImplemented: boolean) {
  const options = {
    name: 'stubcloud',
    setup: () => ({
      cloud: new StubCloud(),
      existingNode: { metadata: { name: 'a' } },
      missingNode: { metadata: { name: 'b' } },
    }),
  };
  const stubs = pendingNotImplemented ? trackStubs(options) : undefined;
  const plan = await planProviderConformance(stubs?.options ?? options);
  const result: Record<string, string> = {};
  for (const check of plan.checks) {
    let outcome = 'passed';
    try {
      const skip = (note: string) => {
        outcome = note;
      };
      await (stubs ? stubs.run(check, skip) : check.run());
    } catch {
      outcome = 'failed';
    }
    result[`${check.facet}: ${check.title}`] = outcome;
  }
  return result;
}

describe('conformance checks against stubs', () => {
  it('are pending with pendingNotImplemented, naming the stub', async () => {
    const r = await outcomes(true);
    // The provider-level checks and getLoadBalancerName (not a stub) really pass.
    const real = (k: string) => k.startsWith('provider:') || k.includes('getLoadBalancerName');
    expect(Object.entries(r).filter(([k]) => real(k))).toEqual(
      Object.entries(r)
        .filter(([k]) => real(k))
        .map(([k]) => [k, 'passed']),
    );
    const stubbed = Object.entries(r).filter(([k]) => !real(k));
    expect(stubbed.length).toBeGreaterThan(5);
    for (const [title, outcome] of stubbed) expect(outcome, title).toMatch(/^pending: \w+ not implemented$/);
  });

  it('without it, the stubs fail checks (those expecting an error pass: hence pending, not "passed")', async () => {
    const r = await outcomes(false);
    const stubbed = Object.entries(r).filter(([k]) => !k.startsWith('provider:'));
    expect(stubbed.filter(([, o]) => o === 'failed').length).toBeGreaterThan(5);
    expect(stubbed.some(([, o]) => o.startsWith('pending'))).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { cloudRequests, JOIN_INTERVAL_MS, w9, w9Schedule } from '../compare/workloads/w9-quota.ts';
import type { RunSpec } from '../compare/run.ts';

describe('w9Schedule', () => {
  it('joins a Node every interval and spreads the Services evenly over the same span', () => {
    const { nodesAtMs, servicesAtMs } = w9Schedule(100, 20);
    expect(nodesAtMs).toHaveLength(100);
    expect(nodesAtMs[1]! - nodesAtMs[0]!).toBe(JOIN_INTERVAL_MS);
    expect(nodesAtMs.at(-1)).toBe(99 * JOIN_INTERVAL_MS);
    expect(servicesAtMs).toHaveLength(20);
    expect(servicesAtMs[0]).toBe(250);
    expect(servicesAtMs[1]! - servicesAtMs[0]!).toBe(500);
    expect(servicesAtMs.at(-1)).toBeLessThan(100 * JOIN_INTERVAL_MS);
  });

  it('creates the Services within one interval when no Node joins', () => {
    expect(w9Schedule(0, 2).servicesAtMs).toEqual([25, 75]);
  });
});

describe('W9', () => {
  it('counts every cloud request but GetLoadBalancerName', () => {
    expect(
      cloudRequests({ calls: { InstanceMetadata: 3, GetLoadBalancerName: 50, UpdateLoadBalancer: 4 } as never }),
    ).toBe(7);
  });

  it('gives ccm-kit its cloud budget at the cloud rate and the Go CCM no extra flag', () => {
    const spec = { cloudRps: 10, impl: { id: 'ts' } } as RunSpec;
    expect(w9.flags!(spec)).toEqual(['--cloud-api-qps=10', '--cloud-api-burst=10']);
    expect(w9.flags!({ ...spec, impl: { ...spec.impl, id: 'go' } })).toEqual([]);
    expect(w9.env!(spec)).toMatchObject({ FAKEBENCH_RPS: '10', FAKEBENCH_RPS_FROM: 'signal' });
  });
});

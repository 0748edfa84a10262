import type { V1Service, V1ServiceStatus } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  LOAD_BALANCER_CONDITION_TYPE,
  notSupportedReason,
  refusedReason,
  withLoadBalancerCondition,
} from '../src/service/status-condition.js';

const t0 = new Date('2026-11-28T10:00:00Z');
const t1 = new Date('2026-11-28T11:00:00Z');
const serving = { status: 'True', reason: 'Serving', message: 'Ensured load balancer' } as const;
const other = { type: 'example.com/Other', status: 'True', reason: 'X', message: '', lastTransitionTime: t0 };
const svc = (conditions: V1ServiceStatus['conditions'] = []): V1Service => ({
  metadata: { name: 'web', namespace: 'ns', generation: 3 },
  status: { conditions },
});

describe('withLoadBalancerCondition', () => {
  it('adds the condition after the others, with observedGeneration and the transition time', () => {
    expect(withLoadBalancerCondition(svc([other]), serving, t0)).toEqual([
      other,
      { type: LOAD_BALANCER_CONDITION_TYPE, ...serving, lastTransitionTime: t0, observedGeneration: 3 },
    ]);
  });

  it('writes nothing when it is unchanged (the steady state), and keeps the transition time when only the reason changes', () => {
    const set = withLoadBalancerCondition(svc(), serving, t0)!;
    expect(withLoadBalancerCondition(svc(set), serving, t1)).toBeUndefined();
    const failing = { status: 'False', reason: 'Infrastructure', message: 'boom' } as const;
    const failed = withLoadBalancerCondition(svc(set), failing, t1)!;
    expect(failed[0]).toMatchObject({ ...failing, lastTransitionTime: t1 });
    const provisioning = { status: 'False', reason: 'Provisioning', message: 'wait' } as const;
    expect(withLoadBalancerCondition(svc(failed), provisioning, t0)![0]!.lastTransitionTime).toBe(t1);
  });

  it('removes only its own condition, and writes nothing when it is absent', () => {
    const set = withLoadBalancerCondition(svc([other]), serving, t0)!;
    expect(withLoadBalancerCondition(svc(set), undefined, t1)).toEqual([other]);
    expect(withLoadBalancerCondition(svc([other]), undefined, t1)).toBeUndefined();
  });

  it('rewrites it when the generation moved on', () => {
    const set = withLoadBalancerCondition(svc(), serving, t0)!;
    const next = { ...svc(set), metadata: { ...svc().metadata, generation: 4 } };
    expect(withLoadBalancerCondition(next, serving, t1)![0]).toMatchObject({
      observedGeneration: 4,
      lastTransitionTime: t0,
    });
  });
});

describe('the refusal reasons (KEP-4631 names)', () => {
  it('is the field name followed by NotSupported', () => {
    expect(notSupportedReason('spec.loadBalancerSourceRanges')).toBe('LoadBalancerSourceRangesNotSupported');
    expect(notSupportedReason('metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]')).toBe(
      'LoadBalancerSourceRangesNotSupported',
    );
    expect(notSupportedReason('spec.ports[1].protocol')).toBe('PortsNotSupported');
    expect(notSupportedReason('spec.ipFamilies[0]')).toBe('IPFamiliesNotSupported');
    expect(notSupportedReason('spec.sessionAffinity')).toBe('SessionAffinityNotSupported');
  });

  it('is Multiple for more than one refused field, and counts only refusing fields', () => {
    const f = (field: string, refuse: boolean) => ({ field, value: '', consequence: '', refuse });
    expect(refusedReason([f('spec.loadBalancerSourceRanges', true), f('spec.sessionAffinity', false)])).toBe(
      'LoadBalancerSourceRangesNotSupported',
    );
    expect(refusedReason([f('spec.loadBalancerSourceRanges', true), f('spec.ports', true)])).toBe('Multiple');
  });
});

import { initializedNode } from '@ccm-kit/testing';
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  formatMetaTime,
  networkConditionNeedsUpdate,
  networkConditionPatch,
  networkUnavailableCondition,
} from '../src/route/network-condition.js';

/** A Ready Node, with a NetworkUnavailable condition (status `Unknown` unless given) when `cond` is given. */
const nodeWith = (cond?: Partial<V1NodeCondition>): V1Node =>
  initializedNode('test-node', {
    ...(cond && { conditions: [{ type: 'NetworkUnavailable', status: 'Unknown', ...cond } as V1NodeCondition] }),
  });

describe('NetworkUnavailable decision (TestUpdateNetworkingCondition, pure part)', () => {
  it('no existing condition: both outcomes write', () => {
    expect(networkConditionNeedsUpdate(nodeWith(), true)).toBe(true);
    expect(networkConditionNeedsUpdate(nodeWith(), false)).toBe(true);
  });
  it('False/RouteCreated with routes created: no write', () => {
    expect(networkConditionNeedsUpdate(nodeWith({ status: 'False', reason: 'RouteCreated' }), true)).toBe(false);
  });
  it('False with a CNI reason and routes created: write (reason differs)', () => {
    expect(networkConditionNeedsUpdate(nodeWith({ status: 'False', reason: 'CalicoIsUp' }), true)).toBe(true);
  });
  it('True/NoRouteCreated with routes not created: no write', () => {
    expect(networkConditionNeedsUpdate(nodeWith({ status: 'True', reason: 'NoRouteCreated' }), false)).toBe(false);
  });
  it('True/SomeOtherReason with routes not created: write', () => {
    expect(networkConditionNeedsUpdate(nodeWith({ status: 'True', reason: 'SomeOtherReason' }), false)).toBe(true);
  });
  it('False/RouteCreated, routes not created: write', () => {
    expect(networkConditionNeedsUpdate(nodeWith({ status: 'False', reason: 'RouteCreated' }), false)).toBe(true);
  });
});

describe('NetworkUnavailable patch body (component-helpers SetNodeCondition)', () => {
  const now = new Date('2026-03-04T05:06:07.891Z');
  it('routes created: False/RouteCreated, both times now, Go field order and time format', () => {
    const body = networkConditionPatch(networkUnavailableCondition(true, now));
    expect(JSON.stringify(body)).toBe(
      '{"status":{"conditions":[{"type":"NetworkUnavailable","status":"False",' +
        '"lastHeartbeatTime":"2026-03-04T05:06:07Z","lastTransitionTime":"2026-03-04T05:06:07Z",' +
        '"reason":"RouteCreated","message":"RouteController created a route"}]}}',
    );
  });
  it('routes not created: True/NoRouteCreated with the exact message', () => {
    const c = networkUnavailableCondition(false, now);
    expect(c).toMatchObject({
      status: 'True',
      reason: 'NoRouteCreated',
      message: 'RouteController failed to create a route',
    });
  });
  it('formats metav1.Time in whole seconds', () => {
    expect(formatMetaTime(new Date('2026-01-02T03:04:05.999Z'))).toBe('2026-01-02T03:04:05Z');
  });
});

import type { Route } from '@ccm-kit/cloud-provider';
import { initializedNode } from '@ccm-kit/testing';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { equalNodeAddrs, getRouteAction, RoutePlan } from '../src/route/plan.js';

const addr = (ip: string) => [{ type: 'InternalIP', address: ip }];
const node = (name: string, uid: string, podCIDRs: string[] | undefined, ip: string): V1Node =>
  initializedNode(name, { metadata: { uid }, addresses: addr(ip), ...(podCIDRs && { podCIDRs }) });

describe('getRouteAction / equalNodeAddrs', () => {
  it('no route for the CIDR: add', () => {
    expect(getRouteAction([], '10.0.0.0/24', addr('1.1.1.1'))).toBe('add');
  });
  it('enableNodeAddresses false: keep even with different addresses', () => {
    const r: Route = {
      targetNode: 'n',
      destinationCIDR: '10.0.0.0/24',
      targetNodeAddresses: addr('2.2.2.2'),
    };
    expect(getRouteAction([r], '10.0.0.0/24', addr('1.1.1.1'))).toBe('keep');
  });
  it('enableNodeAddresses true: keep when equal, update when different or missing', () => {
    const base = { targetNode: 'n', destinationCIDR: '10.0.0.0/24', enableNodeAddresses: true };
    expect(getRouteAction([{ ...base, targetNodeAddresses: addr('1.1.1.1') }], '10.0.0.0/24', addr('1.1.1.1'))).toBe(
      'keep',
    );
    expect(getRouteAction([{ ...base, targetNodeAddresses: addr('2.2.2.2') }], '10.0.0.0/24', addr('1.1.1.1'))).toBe(
      'update',
    );
    expect(getRouteAction([base], '10.0.0.0/24', addr('1.1.1.1'))).toBe('update');
  });
  it('CIDRs are compared as exact strings (no normalization)', () => {
    const r: Route = { targetNode: 'n', destinationCIDR: '10.0.0.1/24' };
    expect(getRouteAction([r], '10.0.0.0/24', [])).toBe('add');
  });
  it('equalNodeAddrs is order-insensitive membership with equal lengths', () => {
    const a = [...addr('1.1.1.1'), { type: 'Hostname', address: 'h' }];
    expect(equalNodeAddrs(a, [...a].reverse())).toBe(true);
    expect(equalNodeAddrs(a, addr('1.1.1.1'))).toBe(false);
    expect(equalNodeAddrs(undefined, [])).toBe(true);
  });
});

describe('RoutePlan', () => {
  it('indexes routes by target, skips empty targets, and marks stale/blackhole routes for deletion', () => {
    const nodes = [node('node-1', '01', ['10.120.0.0/24'], '10.0.1.1'), node('node-2', '02', undefined, '10.0.5.1')];
    const routes: Route[] = [
      { targetNode: 'node-1', destinationCIDR: '10.120.0.0/24' },
      { targetNode: 'node-1', destinationCIDR: '10.120.9.0/24' },
      { targetNode: '', destinationCIDR: '10.120.2.0/24', blackhole: true },
      { targetNode: 'node-2', destinationCIDR: '10.120.1.0/24' },
      { targetNode: 'gone', destinationCIDR: '10.1.0.0/24' },
    ];
    const plan = new RoutePlan(nodes, routes);
    expect([...plan.byNode.keys()].sort()).toEqual(['gone', 'node-1', 'node-2']);
    const deletes = plan.routesToDelete((r) => r.destinationCIDR.startsWith('10.120.'));
    expect(deletes.map((r) => r.destinationCIDR)).toEqual(['10.120.9.0/24', '10.120.2.0/24', '10.120.1.0/24']);
    expect(plan.plannedCreates()).toHaveLength(0);
    expect(plan.conditionOutcome(nodes[0]!)).toBe('routes-created');
    // node-2 has no Pod CIDRs but is a route target: NoRouteCreated.
    expect(plan.conditionOutcome(nodes[1]!)).toBe('routes-not-created');
    expect(plan.conditionOutcome(node('node-9', '09', undefined, '1.1.1.1'))).toBe('skip');
  });

  it('a blackhole route of a live node CIDR is still deleted', () => {
    const nodes = [node('node-1', '01', ['10.120.0.0/24'], '10.0.1.1')];
    const plan = new RoutePlan(nodes, [{ targetNode: 'node-1', destinationCIDR: '10.120.0.0/24', blackhole: true }]);
    expect(plan.routesToDelete(() => true)).toHaveLength(1);
  });

  it('plans one create per add/update CIDR with the node UID as nameHint and no de-duplication', () => {
    const nodes = [node('node-4', '04', ['10.120.1.0/24', '10.120.1.0/24'], '10.0.4.1')];
    const plan = new RoutePlan(nodes, []);
    const creates = plan.plannedCreates();
    expect(creates.map((c) => [c.nameHint, c.route.destinationCIDR])).toEqual([
      ['04', '10.120.1.0/24'],
      ['04', '10.120.1.0/24'],
    ]);
    expect(creates[0]!.route).toEqual({
      targetNode: 'node-4',
      targetNodeAddresses: addr('10.0.4.1'),
      destinationCIDR: '10.120.1.0/24',
    });
    expect(plan.conditionOutcome(nodes[0]!)).toBe('routes-not-created');
    plan.markCreated('node-4', '10.120.1.0/24');
    expect(plan.conditionOutcome(nodes[0]!)).toBe('routes-created');
  });

  it('update actions are both deleted and re-created; creates wait for deletes only if routes[0] enables addresses', () => {
    const nodes = [node('node-1', '01', ['10.120.0.0/24'], '10.0.1.1')];
    const stale: Route = {
      targetNode: 'node-1',
      destinationCIDR: '10.120.0.0/24',
      enableNodeAddresses: true,
      targetNodeAddresses: addr('10.0.1.2'),
    };
    const plan = new RoutePlan(nodes, [stale]);
    expect(plan.decisions).toEqual([{ node: 'node-1', podCIDR: '10.120.0.0/24', action: 'update' }]);
    expect(plan.routesToDelete(() => true)).toEqual([stale]);
    expect(plan.plannedCreates()).toHaveLength(1);
    expect(plan.createsWaitForDeletes()).toBe(true);
    expect(new RoutePlan(nodes, [{ ...stale, enableNodeAddresses: false }]).createsWaitForDeletes()).toBe(false);
    expect(new RoutePlan(nodes, []).createsWaitForDeletes()).toBe(false);
  });
});

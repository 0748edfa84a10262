import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import { FakeCloud, initializedNode, MemoryInformer, RecordingEventRecorder, silentLogger } from '@ccm-kit/testing';
import { describe, expect, it } from 'vitest';
import { parseClusterCIDRs } from '../src/route/cluster-cidrs.js';
import { ConditionWrites } from '../src/route/condition-writes.js';
import { type NodeRouteApi, NodeRouteController } from '../src/route/controller.js';
import type { NetworkConditionPatch } from '../src/route/network-condition.js';

/** A routed Node at `resourceVersion`, with a NetworkUnavailable condition when given (no other condition). */
const node = (name: string, resourceVersion: string | undefined, condition?: Partial<V1NodeCondition>): V1Node =>
  initializedNode(name, {
    metadata: { uid: `uid-${name}`, ...(resourceVersion && { resourceVersion }) },
    podCIDRs: ['10.120.0.0/24'],
    addresses: [{ type: 'InternalIP', address: '10.0.1.1' }],
    ready: 'unset',
    ...(condition && { conditions: [{ type: 'NetworkUnavailable', ...condition } as V1NodeCondition] }),
  });

describe('ConditionWrites', () => {
  it('holds a write while the cache shows the version it was decided on, then forgets it', () => {
    const w = new ConditionWrites();
    w.written(node('a', '10'), true);
    expect(w.awaitingCache(node('a', '10'), true)).toBe(true);
    expect(w.awaitingCache(node('a', '10'), false)).toBe(false); // another outcome is written again
    expect(w.awaitingCache(node('a', '11'), true)).toBe(false); // the cache moved on: it decides
    expect(w.size).toBe(0);
    expect(w.awaitingCache(node('a', '10'), true)).toBe(false);
  });

  it('remembers nothing for a Node without a resourceVersion, and forgets failed writes and deleted Nodes', () => {
    const w = new ConditionWrites();
    w.written(node('a', undefined), true);
    expect(w.awaitingCache(node('a', undefined), true)).toBe(false);
    w.written(node('b', '5'), true);
    w.forget('b');
    expect(w.awaitingCache(node('b', '5'), true)).toBe(false);
    w.written(node('c', '7'), true);
    w.written(node('d', '8'), true);
    w.retainOnly(new Set(['d']));
    expect(w.size).toBe(1);
    expect(w.awaitingCache(node('d', '8'), true)).toBe(true);
  });
});

describe('NodeRouteController with a Node cache that lags behind its writes', () => {
  function setup(patch?: () => Promise<void>) {
    const cloud = new FakeCloud();
    const informer = new MemoryInformer<V1Node>([node('n1', '100')]);
    const patches: Array<{ name: string; body: NetworkConditionPatch }> = [];
    const client = {
      patchNodeStatus: async ({ name, body }: { name: string; body: NetworkConditionPatch }) => {
        await patch?.();
        patches.push({ name, body });
        return {};
      },
    } as unknown as NodeRouteApi;
    const controller = new NodeRouteController({
      cloud,
      client,
      informers: { nodes: () => informer },
      recorder: new RecordingEventRecorder(),
      logger: silentLogger,
      config: { clusterName: 'k', clusterCIDRs: parseClusterCIDRs('10.120.0.0/16') },
    });
    return { controller, informer, patches };
  }
  const pass = (c: NodeRouteController) => c.reconcileNodeRoutes(new AbortController().signal);

  it('writes the condition once while the cache still holds the Node from before the write', async () => {
    const { controller, informer, patches } = setup();
    await pass(controller); // creates the route, then writes False/RouteCreated
    await pass(controller); // the cache still shows resourceVersion 100 without the condition
    await pass(controller);
    expect(patches.map((p) => p.name)).toEqual(['n1']);
    // The cache catches up with the write: nothing to write.
    informer.set(node('n1', '101', { status: 'False', reason: 'RouteCreated' }));
    await pass(controller);
    expect(patches).toHaveLength(1);
  });

  it('writes again once the cache shows another version without the condition (someone else changed it)', async () => {
    const { controller, informer, patches } = setup();
    await pass(controller);
    informer.set(node('n1', '102', { status: 'True', reason: 'CalicoIsDown' }));
    await pass(controller);
    expect(patches.map((p) => p.body.status.conditions[0].reason)).toEqual(['RouteCreated', 'RouteCreated']);
  });

  it('writes again on the next pass after a failed write', async () => {
    let fail = true;
    const { controller, patches } = setup(async () => {
      if (fail) throw new Error('HTTP 504');
    });
    await pass(controller);
    expect(patches).toHaveLength(0);
    fail = false;
    await pass(controller);
    await pass(controller);
    expect(patches).toHaveLength(1);
  });
});

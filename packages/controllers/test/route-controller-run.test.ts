import { metricsRegistry } from '@ccm-kit/runtime';
import { FakeCloud, initializedNode, MemoryInformer, RecordingEventRecorder, silentLogger } from '@ccm-kit/testing';
import type { V1Node } from '@kubernetes/client-node';
import { eventually } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { parseClusterCIDRs } from '../src/route/cluster-cidrs.js';
import { NodeRouteController } from '../src/route/controller.js';

const silent = silentLogger;

/** Node `node-1` at resourceVersion `rv`, with its Pod CIDRs and one InternalIP. */
const mkNode = (rv: string, podCIDRs: string[], address: string): V1Node =>
  initializedNode('node-1', {
    metadata: { uid: '01', resourceVersion: rv },
    podCIDRs,
    addresses: [{ type: 'InternalIP', address }],
  });

function build(opts: { watchBased: boolean; nodes?: V1Node[]; synced?: boolean; periodMs?: number }) {
  const cloud = new FakeCloud();
  const informer = new MemoryInformer<V1Node>(opts.nodes ?? []);
  informer.synced = opts.synced ?? true;
  const controller = new NodeRouteController({
    cloud,
    client: { patchNodeStatus: async () => ({}) },
    informers: { nodes: () => informer },
    recorder: new RecordingEventRecorder(),
    logger: silent,
    config: {
      clusterName: 'my-k8s',
      clusterCIDRs: parseClusterCIDRs('10.120.0.0/16'),
      watchBased: opts.watchBased,
      routeReconciliationPeriodMs: opts.periodMs,
    },
  });
  return { cloud, controller, informer };
}

async function runningRoute(): Promise<number | undefined> {
  const m = await metricsRegistry.getSingleMetric('running_managed_controllers')?.get();
  return m?.values.find((v) => v.labels.name === 'route')?.value;
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('watch-based mode (TestHandleNodeUpdate, gate CloudControllerManagerWatchBasedRoutesReconciliation)', () => {
  it('creates the Routes queue only when the gate is on', () => {
    expect(build({ watchBased: true }).controller.queue?.name).toBe('Routes');
    expect(build({ watchBased: false }).controller.queue).toBeUndefined();
  });

  it('RT-30: internal IP updated: the queue yields "routes"', async () => {
    const { controller } = build({ watchBased: true });
    controller.handleNodeUpdate(mkNode('1', ['10.120.0.0/24'], '10.0.1.1'), mkNode('2', ['10.120.0.0/24'], '10.0.1.2'));
    expect(await controller.queue!.get()).toBe('routes');
  });

  it('RT-31: pod CIDR updated: the queue yields "routes"', async () => {
    const { controller } = build({ watchBased: true });
    controller.handleNodeUpdate(mkNode('1', ['10.120.0.0/24'], '10.0.1.1'), mkNode('2', ['10.121.0.0/24'], '10.0.1.1'));
    expect(await controller.queue!.get()).toBe('routes');
  });

  it('RT-32/RT-33: a resync enqueues; an unrelated change with a new resourceVersion does not', async () => {
    const { controller } = build({ watchBased: true });
    const same = mkNode('5', ['10.120.0.0/24'], '10.0.1.1');
    controller.handleNodeUpdate(same, same);
    expect(controller.queue!.len()).toBe(1);
    const q = controller.queue!;
    expect(await q.get()).toBe('routes');
    q.forget('routes');
    q.done('routes');
    const unrelated = {
      ...mkNode('7', ['10.120.0.0/24'], '10.0.1.1'),
      status: { ...same.status, images: [] },
    };
    controller.handleNodeUpdate(mkNode('6', ['10.120.0.0/24'], '10.0.1.1'), unrelated);
    await settle(20);
    expect(q.len()).toBe(0);
  });

  it('node add/delete events drive passes through the single key; passes stop with the signal', async () => {
    const node = mkNode('1', ['10.120.0.0/24'], '10.0.1.1');
    const { cloud, controller, informer } = build({ watchBased: true, nodes: [node], periodMs: 10_000 });
    expect(informer.handlers).toHaveLength(1);
    const ac = new AbortController();
    const done = controller.run(ac.signal);
    informer.add(node, true);
    await eventually(() => expect(cloud.calls).toEqual(['list-routes', 'create-route']), {
      timeoutMs: 5_000,
      intervalMs: 10,
    });
    expect((await cloud.listRoutes('my-k8s')).map((r) => r.destinationCIDR)).toEqual(['10.120.0.0/24']);
    ac.abort();
    await done;
    expect(informer.handlers).toHaveLength(0);
    expect(controller.queue!.shuttingDown()).toBe(true);
  });
});

describe('NodeRouteController.run (periodic mode)', () => {
  it('waits for the Node cache, then reconciles at once and every period (non-sliding); reports running_managed_controllers', async () => {
    const { cloud, controller, informer } = build({ watchBased: false, synced: false, periodMs: 60 });
    const ac = new AbortController();
    const done = controller.run(ac.signal);
    await settle(30);
    expect(cloud.calls).toEqual([]);
    expect(await runningRoute()).toBe(1);
    informer.synced = true;
    await settle(300);
    const passes = cloud.calls.filter((c) => c === 'list-routes').length;
    expect(passes).toBeGreaterThanOrEqual(2);
    expect(passes).toBeLessThanOrEqual(5);
    ac.abort();
    await done;
    expect(await runningRoute()).toBe(0);
    const after = cloud.calls.length;
    await settle(100);
    expect(cloud.calls.length).toBe(after);
  });

  it('a failing pass is logged and the loop continues', async () => {
    const { cloud, controller } = build({ watchBased: false, periodMs: 20 });
    cloud.err = new Error('cloud down');
    const ac = new AbortController();
    const done = controller.run(ac.signal);
    await settle(90);
    ac.abort();
    await done;
    expect(cloud.calls.filter((c) => c === 'list-routes').length).toBeGreaterThanOrEqual(2);
  });

  it('rejects a non-positive period', async () => {
    const { controller } = build({ watchBased: false, periodMs: 0 });
    await expect(controller.run(new AbortController().signal)).rejects.toThrow(RangeError);
  });
});

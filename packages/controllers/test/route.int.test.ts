/**
 * node-route-controller against a real kube-apiserver and FakeCloud's route table: started through its
 * descriptor by `useControllerUnderTest`, as the app starts it. One control plane
 * and one controller for the file (period 200 ms); each test uses its own Node names and Pod CIDRs and
 * removes its Nodes afterwards.
 */
import type { Route } from '@ccm-kit/cloud-provider';
import { patchOptions } from '@ccm-kit/runtime/client';
import {
  FakeCloud,
  kubeletNode,
  MemoryInformer,
  RecordingEventRecorder,
  silentLogger,
  uniqueName as uniq,
} from '@ccm-kit/testing';
import {
  type ControllerUnderTest,
  eventually,
  startControllerUnderTest,
  useControllerUnderTest,
} from '@ccm-kit/testing/vitest';
import type { ConfigurationOptions, CoreV1Api, V1Node, V1NodeCondition } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseClusterCIDRs } from '../src/route/cluster-cidrs.js';
import { type NodeRouteApi, NodeRouteController } from '../src/route/controller.js';
import type { NetworkConditionPatch } from '../src/route/network-condition.js';
import { nodeRouteController, WATCH_BASED_ROUTES_GATE } from '../src/route/descriptor.js';

const CLUSTER = 'int-cluster';
const cloud = new FakeCloud();
const cut = useControllerUnderTest(() => ({
  cloud,
  controller: nodeRouteController,
  config: {
    clusterName: CLUSTER,
    clusterCIDR: '10.120.0.0/16,fd00:10:120::/48',
    routeReconciliationPeriodMs: 200,
  },
}));
let core: CoreV1Api;

beforeAll(() => {
  expect(cut().result.started).toBe(true);
  core = cut().cluster.core;
});

afterEach(() => {
  cloud.faults.clear();
});

/** Creates a Node with Pod CIDRs, then sets its InternalIP (and optional conditions) through `nodes/status`. */
async function createNode(
  name: string,
  podCIDRs: string[] | undefined,
  address: string,
  conditions: V1NodeCondition[] = [],
): Promise<V1Node> {
  cut().cluster.deleteNodeLater(name);
  await core.createNode({ body: kubeletNode(name, { taints: [], ...(podCIDRs && { podCIDRs }) }) });
  return core.patchNodeStatus(
    { name, body: { status: { addresses: [{ type: 'InternalIP', address }], conditions } } },
    patchOptions('merge'),
  );
}

const networkCondition = (node: V1Node) => node.status?.conditions?.find((c) => c.type === 'NetworkUnavailable');

async function routesOf(target: string): Promise<Route[]> {
  return (await cloud.listRoutes(CLUSTER)).filter((r) => r.targetNode === target);
}

function seedRoute(route: Route): void {
  cloud.routeMap.set(route.name!, { clusterName: CLUSTER, route });
}

describe('node-route-controller (real API server)', () => {
  it('creates routes for Nodes with Pod CIDRs (dual-stack) and clears NetworkUnavailable (False/RouteCreated)', async () => {
    const a = uniq('rt-a');
    const b = uniq('rt-b');
    const ready = {
      type: 'Ready',
      status: 'False',
      reason: 'KubeletNotReady',
      message: 'cni not ready',
      lastHeartbeatTime: new Date('2026-01-01T00:00:00Z'),
      lastTransitionTime: new Date('2026-01-01T00:00:00Z'),
    } as V1NodeCondition;
    const nodeA = await createNode(a, ['10.120.1.0/24', 'fd00:10:120:1::/64'], '10.0.1.1', [ready]);
    await createNode(b, ['10.120.2.0/24'], '10.0.2.1');
    const routesA = await eventually(async () => {
      const rs = await routesOf(a);
      expect(rs.map((r) => r.destinationCIDR).sort()).toEqual(['10.120.1.0/24', 'fd00:10:120:1::/64']);
      return rs;
    });
    expect(routesA[0]!.targetNodeAddresses).toEqual([{ type: 'InternalIP', address: '10.0.1.1' }]);
    expect(await eventually(async () => (await routesOf(b)).map((r) => r.destinationCIDR))).toEqual(['10.120.2.0/24']);
    const after = await eventually(async () => {
      const n = await core.readNode({ name: a });
      expect(networkCondition(n)).toBeDefined();
      return n;
    });
    const cond = networkCondition(after)!;
    expect(cond).toMatchObject({
      status: 'False',
      reason: 'RouteCreated',
      message: 'RouteController created a route',
    });
    expect(new Date(cond.lastHeartbeatTime!).getTime()).toBe(new Date(cond.lastTransitionTime!).getTime());
    // The condition was merged by type: the Ready condition is untouched.
    expect(after.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'KubeletNotReady',
    });
    expect(nodeA.metadata?.uid).toBeTruthy();
    // Later passes do not rewrite an up-to-date condition.
    const rv = after.metadata?.resourceVersion;
    const passes = cloud.calls.filter((c) => c === 'list-routes').length;
    await eventually(() => expect(cloud.calls.filter((c) => c === 'list-routes').length).toBeGreaterThan(passes + 2));
    expect((await core.readNode({ name: a })).metadata?.resourceVersion).toBe(rv);
  });

  it("overwrites a CNI's NetworkUnavailable reason with RouteCreated", async () => {
    const name = uniq('rt-cni');
    await createNode(name, ['10.120.3.0/24'], '10.0.3.1', [
      {
        type: 'NetworkUnavailable',
        status: 'False',
        reason: 'CalicoIsUp',
        message: 'Calico is running on this node',
        lastHeartbeatTime: new Date('2026-01-01T00:00:00Z'),
        lastTransitionTime: new Date('2026-01-01T00:00:00Z'),
      } as V1NodeCondition,
    ]);
    const cond = await eventually(async () => {
      const c = networkCondition(await core.readNode({ name }));
      expect(c?.reason).toBe('RouteCreated');
      return c!;
    });
    expect(cond.status).toBe('False');
    expect(new Date(cond.lastTransitionTime!).getTime()).toBeGreaterThan(new Date('2026-01-02T00:00:00Z').getTime());
  });

  it('deletes the route of a removed Node', async () => {
    const name = uniq('rt-del');
    await createNode(name, ['10.120.4.0/24'], '10.0.4.1');
    await eventually(async () => expect(await routesOf(name)).toHaveLength(1));
    await core.deleteNode({ name });
    await eventually(async () => expect(await routesOf(name)).toHaveLength(0));
  });

  it('deletes a blackhole route inside the cluster CIDR and keeps one outside it', async () => {
    seedRoute({ name: 'bh-in', targetNode: '', destinationCIDR: '10.120.250.0/24', blackhole: true });
    seedRoute({ name: 'bh-out', targetNode: '', destinationCIDR: '10.1.2.0/24', blackhole: true });
    seedRoute({ name: 'foreign', targetNode: 'elsewhere', destinationCIDR: '192.168.7.0/24' });
    await eventually(async () =>
      expect((await cloud.listRoutes(CLUSTER)).map((r) => r.destinationCIDR)).not.toContain('10.120.250.0/24'),
    );
    const passes = cloud.calls.filter((c) => c === 'list-routes').length;
    await eventually(() => expect(cloud.calls.filter((c) => c === 'list-routes').length).toBeGreaterThan(passes + 2));
    const left = (await cloud.listRoutes(CLUSTER)).map((r) => r.destinationCIDR);
    expect(left).toContain('10.1.2.0/24');
    expect(left).toContain('192.168.7.0/24');
  });

  it('a failed create raises FailedToCreateRoute on the Node (default namespace) and sets True/NoRouteCreated', async () => {
    const name = uniq('rt-fail');
    cloud.faults.injectError('createRoute', { subject: `${CLUSTER}/${name}`, error: new Error('quota exceeded') });
    const node = await createNode(name, ['10.120.5.0/24'], '10.0.5.1');
    const cond = await eventually(async () => {
      const c = networkCondition(await core.readNode({ name }));
      expect(c).toBeDefined();
      return c!;
    });
    expect(cond).toMatchObject({
      status: 'True',
      reason: 'NoRouteCreated',
      message: 'RouteController failed to create a route',
    });
    const ev = await eventually(async () => {
      const list = await core.listNamespacedEvent({
        namespace: 'default',
        fieldSelector: `involvedObject.name=${name}`,
      });
      const e = list.items.find((x) => x.reason === 'FailedToCreateRoute');
      expect(e).toBeDefined();
      return e!;
    });
    expect(ev.type).toBe('Warning');
    expect(ev.source?.component).toBe('route_controller');
    expect(ev.involvedObject).toMatchObject({
      apiVersion: 'v1',
      kind: 'Node',
      name,
      uid: node.metadata?.uid,
    });
    expect(ev.message).toMatch(
      new RegExp(
        `^Could not create route ${node.metadata?.uid} 10\\.120\\.5\\.0/24 for node ${name} after .+: quota exceeded$`,
      ),
    );
    // Once the cloud recovers, the next pass creates the route and flips the condition.
    cloud.faults.injectError('createRoute', undefined);
    await eventually(async () => {
      expect(networkCondition(await core.readNode({ name }))?.reason).toBe('RouteCreated');
    });
    expect((await routesOf(name)).map((r) => r.destinationCIDR)).toEqual(['10.120.5.0/24']);
  });

  it('a Node without Pod CIDRs gets no route and no condition', async () => {
    const name = uniq('rt-nocidr');
    await createNode(name, undefined, '10.0.6.1');
    const passes = cloud.calls.filter((c) => c === 'list-routes').length;
    await eventually(() => expect(cloud.calls.filter((c) => c === 'list-routes').length).toBeGreaterThan(passes + 2));
    expect(await routesOf(name)).toEqual([]);
    expect(networkCondition(await core.readNode({ name }))).toBeUndefined();
  });
});

describe('node-route-controller, watch-based (gate CloudControllerManagerWatchBasedRoutesReconciliation)', () => {
  // A second controller on the same API server, with its own cloud, owning only Nodes named `wb-…`: its passes
  // come from Node events through the `Routes` queue and the runtime loop, never from a period.
  const wbCloud = new FakeCloud();
  let wbController: ControllerUnderTest;
  let wb: ControllerUnderTest['result'];
  const wbRoutesOf = (target: string) =>
    [...wbCloud.routeMap.values()].map((e) => e.route).filter((r) => r.targetNode === target);

  beforeAll(async () => {
    wbController = await startControllerUnderTest({
      cloud: wbCloud,
      controller: nodeRouteController,
      cluster: cut().cluster,
      config: {
        clusterName: CLUSTER,
        clusterCIDR: '10.120.0.0/16',
        featureGates: { [WATCH_BASED_ROUTES_GATE]: true },
        nodeOwnership: (n) => n.metadata?.name?.startsWith('wb-') === true,
      },
    });
    wb = wbController.result;
    expect(wb.started).toBe(true);
  });

  afterAll(async () => {
    await wbController?.stop();
  });

  it('a Node event causes a pass; a failed pass is requeued rate-limited and retried; a delete removes the route', async () => {
    const name = uniq('wb-a');
    wbCloud.faults.injectError('listRoutes', { times: 1, error: new Error('cloud hiccup') });
    // Created without a status update, so the add is the only event that asks for a pass.
    cut().cluster.deleteNodeLater(name);
    await core.createNode({
      body: { metadata: { name }, spec: { podCIDR: '10.120.250.0/24', podCIDRs: ['10.120.250.0/24'] } },
    });
    // The first pass fails on the injected error; the key comes back through the queue's rate limiter (one
    // pass per 10 s, waits capped at 10 s), hence the longer waits.
    await eventually(() => expect(wbRoutesOf(name).map((r) => r.destinationCIDR)).toEqual(['10.120.250.0/24']), 30_000);
    const lists = wbCloud.callLog.entries('listRoutes');
    expect(lists[0]?.outcome).toBe('error');
    expect(lists.some((e) => e.outcome === 'ok')).toBe(true);
    await core.deleteNode({ name });
    await eventually(() => expect(wbRoutesOf(name)).toEqual([]), 30_000);
  });
});

describe('node-route-controller with a Node cache behind the API server (decision 0304)', () => {
  it('writes NetworkUnavailable once while its cache holds the Node from before the write; again after a change', async () => {
    const name = uniq('rt-lag');
    const created = await createNode(name, ['10.120.240.0/24'], '10.0.240.1');
    // A cache that never sees the write: it holds the Node as created until the test moves it on.
    const cache = new MemoryInformer<V1Node>([created]);
    const writes: string[] = [];
    // The real API server's patchNodeStatus, counting the condition reasons written.
    const client = {
      patchNodeStatus: (p: { name: string; body: NetworkConditionPatch }, o?: ConfigurationOptions) => {
        writes.push(p.body.status.conditions[0].reason);
        return core.patchNodeStatus(p, o);
      },
    } as NodeRouteApi;
    const controller = new NodeRouteController({
      cloud: new FakeCloud(),
      client,
      informers: { nodes: () => cache },
      recorder: new RecordingEventRecorder(),
      logger: silentLogger,
      config: {
        clusterName: CLUSTER,
        clusterCIDRs: parseClusterCIDRs('10.120.0.0/16'),
        nodeOwnership: (n) => n.metadata?.name === name,
      },
    });
    const pass = () => controller.reconcileNodeRoutes(new AbortController().signal);
    await pass();
    await pass();
    await pass();
    expect(writes).toEqual(['RouteCreated']);
    const written = await core.readNode({ name });
    expect(written.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);
    expect(networkCondition(written)).toMatchObject({ status: 'False', reason: 'RouteCreated' });

    // The cache catches up: the condition is there, nothing to write.
    cache.set(written);
    await pass();
    expect(writes).toEqual(['RouteCreated']);

    // Someone else changes the condition; once the cache shows it, the controller writes again.
    const changed = await core.patchNodeStatus(
      {
        name,
        body: {
          status: {
            conditions: [{ type: 'NetworkUnavailable', status: 'True', reason: 'CniDown', message: 'cni is down' }],
          },
        },
      },
      patchOptions('strategic'),
    );
    cache.set(changed);
    await pass();
    expect(writes).toEqual(['RouteCreated', 'RouteCreated']);
  });
});

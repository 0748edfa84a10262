import type { CloudProvider, Route, Routes } from '@ccm-kit/cloud-provider';
import { CoreV1Client } from '@ccm-kit/runtime/client';
import { FakeCloud, initializedNode, MemoryInformer, RecordingEventRecorder, silentLogger } from '@ccm-kit/testing';
import { ApiException, type V1Node, type V1NodeAddress, type V1NodeCondition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parseClusterCIDRs } from '../src/route/cluster-cidrs.js';
import { type NodeRouteApi, type NodeRouteConfig, NodeRouteController } from '../src/route/controller.js';
import { routeSyncTotal } from '../src/route/metrics.js';
import type { NetworkConditionPatch } from '../src/route/network-condition.js';

const cluster = 'my-k8s';
const ip = (address: string): V1NodeAddress[] => [{ type: 'InternalIP', address }];

/** An initialized Node with the Pod CIDRs the node IPAM controller allocated (none: no route) and one InternalIP. */
const mkNode = (name: string, uid: string, podCIDRs: string[] | undefined, address: string): V1Node =>
  initializedNode(name, {
    metadata: { uid, resourceVersion: '1' },
    addresses: ip(address),
    ...(podCIDRs && { podCIDRs }),
  });

const node1 = mkNode('node-1', '01', ['10.120.0.0/24'], '10.0.1.1');
const node2 = mkNode('node-2', '02', ['10.120.1.0/24'], '10.0.2.1');
const nodeNoCidr = mkNode('node-2', '02', undefined, '10.0.5.1');
const node3 = mkNode('node-3', '03', ['10.120.0.0/24', 'a00:100::/24'], '10.0.3.1');
const node4 = mkNode('node-4', '04', ['10.120.1.0/24', 'a00:200::/24'], '10.0.4.1');
const nodeDuplicateCIDR = mkNode('node-4', '04', ['10.120.1.0/24', '10.120.1.0/24'], '10.0.4.1');

function r(
  name: string,
  targetNode: string,
  destinationCIDR: string,
  address?: string,
  extra: Partial<Route> = {},
): Route {
  return {
    name: `${cluster}-${name}`,
    targetNode,
    destinationCIDR,
    ...(address ? { targetNodeAddresses: ip(address) } : {}),
    blackhole: false,
    ...extra,
  };
}

const silent = silentLogger;

/** `cloud` with its Routes facet replaced by `routes`. */
function withRoutes(cloud: CloudProvider, routes: Routes): CloudProvider {
  return { providerName: () => cloud.providerName(), hasClusterID: () => true, routes: () => routes };
}

function harness(opts: {
  nodes: V1Node[];
  initialRoutes?: Route[];
  dualStack?: boolean;
  routes?: Routes;
  patch?: (name: string, body: NetworkConditionPatch) => Promise<void>;
  nodeOwnership?: NodeRouteConfig['nodeOwnership'];
}) {
  const cloud = new FakeCloud();
  for (const route of opts.initialRoutes ?? []) {
    cloud.routeMap.set(route.name!, { clusterName: cluster, route: structuredClone(route) });
  }
  const patches: Array<{ name: string; body: NetworkConditionPatch }> = [];
  const recorder = new RecordingEventRecorder();
  const client = {
    patchNodeStatus: async ({ name, body }: { name: string; body: NetworkConditionPatch }) => {
      patches.push({ name, body });
      await opts.patch?.(name, body);
      return {};
    },
  } as unknown as NodeRouteApi;
  const routes = opts.routes;
  const controller = new NodeRouteController({
    cloud: routes ? withRoutes(cloud, routes) : cloud,
    client,
    informers: { nodes: () => new MemoryInformer(opts.nodes) },
    recorder,
    logger: silent,
    config: {
      clusterName: cluster,
      clusterCIDRs: parseClusterCIDRs(opts.dualStack ? '10.120.0.0/16,ace:cab:deca::/8' : '10.120.0.0/16'),
      nodeOwnership: opts.nodeOwnership,
    },
    now: () => new Date('2026-05-06T07:08:09Z'),
  });
  return { cloud, controller, patches, events: recorder.events };
}

type Flat = [string, string, string];
const flatten = (routes: Route[]): Flat[] =>
  routes
    .map((x): Flat => [x.targetNode, x.destinationCIDR, JSON.stringify(x.targetNodeAddresses ?? [])])
    .sort((a, b) => a.join().localeCompare(b.join()));

async function finalRoutes(cloud: FakeCloud): Promise<Route[]> {
  return cloud.listRoutes(cluster);
}

interface Scenario {
  id: string;
  description: string;
  nodes: V1Node[];
  initialRoutes: Route[];
  expected: Route[];
  dualStack?: boolean;
  /** Node name -> expected NetworkUnavailable status written, or null for no write. */
  conditions: Record<string, 'True' | 'False' | null>;
}

const scenarios: Scenario[] = [
  {
    id: 'RT-13',
    description: 'routes have no TargetNodeAddresses at the beginning',
    dualStack: true,
    nodes: [node3, node4],
    initialRoutes: [
      r('01', 'node-3', '10.120.0.0/24', undefined, { enableNodeAddresses: true }),
      r('02', 'node-4', '10.120.1.0/24', undefined, { enableNodeAddresses: true }),
      r('03', 'node-3', 'a00:100::/24', undefined, { enableNodeAddresses: true }),
      r('04', 'node-4', 'a00:200::/24', undefined, { enableNodeAddresses: true }),
    ],
    expected: [
      r('01', 'node-3', '10.120.0.0/24', '10.0.3.1'),
      r('02', 'node-4', '10.120.1.0/24', '10.0.4.1'),
      r('03', 'node-3', 'a00:100::/24', '10.0.3.1'),
      r('04', 'node-4', 'a00:200::/24', '10.0.4.1'),
    ],
    conditions: { 'node-3': 'False', 'node-4': 'False' },
  },
  {
    id: 'RT-14',
    description: "routes' TargetNodeAddresses changed",
    dualStack: true,
    nodes: [node3, node4],
    initialRoutes: [
      r('01', 'node-3', '10.120.0.0/24', '10.0.13.1', { enableNodeAddresses: true }),
      r('02', 'node-4', '10.120.1.0/24', '10.0.14.1', { enableNodeAddresses: true }),
      r('03', 'node-3', 'a00:100::/24', '10.0.13.1', { enableNodeAddresses: true }),
      r('04', 'node-4', 'a00:200::/24', '10.0.14.1', { enableNodeAddresses: true }),
    ],
    expected: [
      r('01', 'node-3', '10.120.0.0/24', '10.0.3.1'),
      r('02', 'node-4', '10.120.1.0/24', '10.0.4.1'),
      r('03', 'node-3', 'a00:100::/24', '10.0.3.1'),
      r('04', 'node-4', 'a00:200::/24', '10.0.4.1'),
    ],
    conditions: { 'node-3': 'False', 'node-4': 'False' },
  },
  {
    id: 'RT-15',
    description: 'multicidr 2 nodes and no routes',
    dualStack: true,
    nodes: [node3, node4],
    initialRoutes: [],
    expected: [
      r('01', 'node-3', '10.120.0.0/24', '10.0.3.1'),
      r('02', 'node-4', '10.120.1.0/24', '10.0.4.1'),
      r('03', 'node-3', 'a00:100::/24', '10.0.3.1'),
      r('04', 'node-4', 'a00:200::/24', '10.0.4.1'),
    ],
    conditions: { 'node-3': 'False', 'node-4': 'False' },
  },
  {
    id: 'RT-16',
    description: 'multicidr 2 nodes and all routes created',
    dualStack: true,
    nodes: [node3, node4],
    initialRoutes: [
      r('01', 'node-3', '10.120.0.0/24', '10.0.3.1'),
      r('02', 'node-4', '10.120.1.0/24', '10.0.4.1'),
      r('03', 'node-3', 'a00:100::/24', '10.0.3.1'),
      r('04', 'node-4', 'a00:200::/24', '10.0.4.1'),
    ],
    expected: [
      r('01', 'node-3', '10.120.0.0/24', '10.0.3.1'),
      r('02', 'node-4', '10.120.1.0/24', '10.0.4.1'),
      r('03', 'node-3', 'a00:100::/24', '10.0.3.1'),
      r('04', 'node-4', 'a00:200::/24', '10.0.4.1'),
    ],
    conditions: { 'node-3': 'False', 'node-4': 'False' },
  },
  {
    id: 'RT-17',
    description: 'multicidr 2 nodes and few wrong routes',
    dualStack: true,
    nodes: [node3, node4],
    initialRoutes: [
      r('01', 'node-3', '10.120.1.0/24', '10.0.3.1'),
      r('02', 'node-4', '10.120.0.0/24', '10.0.4.1'),
      r('03', 'node-3', 'a00:200::/24', '10.0.3.1'),
      r('04', 'node-4', 'a00:100::/24', '10.0.4.1'),
    ],
    expected: [
      r('01', 'node-3', '10.120.0.0/24', '10.0.3.1'),
      r('02', 'node-4', '10.120.1.0/24', '10.0.4.1'),
      r('03', 'node-3', 'a00:100::/24', '10.0.3.1'),
      r('04', 'node-4', 'a00:200::/24', '10.0.4.1'),
    ],
    conditions: { 'node-3': 'False', 'node-4': 'False' },
  },
  {
    id: 'RT-18',
    description: 'multicidr 2 nodes and some routes created',
    dualStack: true,
    nodes: [node3, node4],
    initialRoutes: [r('01', 'node-3', '10.120.0.0/24', '10.0.3.1'), r('04', 'node-4', 'a00:200::/24', '10.0.4.1')],
    expected: [
      r('01', 'node-3', '10.120.0.0/24', '10.0.3.1'),
      r('02', 'node-4', '10.120.1.0/24', '10.0.4.1'),
      r('03', 'node-3', 'a00:100::/24', '10.0.3.1'),
      r('04', 'node-4', 'a00:200::/24', '10.0.4.1'),
    ],
    conditions: { 'node-3': 'False', 'node-4': 'False' },
  },
  {
    id: 'RT-19',
    description: 'multicidr 2 nodes and too many routes',
    dualStack: true,
    nodes: [node3, node4],
    initialRoutes: [
      r('01', 'node-3', '10.120.0.0/24', '10.0.3.1'),
      r('02', 'node-4', '10.120.1.0/24', '10.0.4.1'),
      r('001', 'node-x', '10.120.2.0/24', '10.0.5.1'),
      r('03', 'node-3', 'a00:100::/24', '10.0.3.1'),
      r('04', 'node-4', 'a00:200::/24', '10.0.4.1'),
      r('0002', 'node-y', 'a00:300::/24', '10.0.6.1'),
    ],
    expected: [
      r('01', 'node-3', '10.120.0.0/24', '10.0.3.1'),
      r('02', 'node-4', '10.120.1.0/24', '10.0.4.1'),
      r('03', 'node-3', 'a00:100::/24', '10.0.3.1'),
      r('04', 'node-4', 'a00:200::/24', '10.0.4.1'),
    ],
    conditions: { 'node-3': 'False', 'node-4': 'False' },
  },
  {
    id: 'RT-20',
    description: 'single cidr 2 nodes and routes created',
    nodes: [node1, node2],
    initialRoutes: [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'), r('02', 'node-2', '10.120.1.0/24', '10.0.2.1')],
    expected: [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'), r('02', 'node-2', '10.120.1.0/24', '10.0.2.1')],
    conditions: { 'node-1': 'False', 'node-2': 'False' },
  },
  {
    id: 'RT-21',
    description: 'single cidr node ips changed so routes should be updated',
    nodes: [node1, node2],
    initialRoutes: [
      r('01', 'node-1', '10.120.0.0/24', '10.0.1.2', { enableNodeAddresses: true }),
      r('02', 'node-2', '10.120.1.0/24', '10.0.2.2', { enableNodeAddresses: true }),
    ],
    expected: [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'), r('02', 'node-2', '10.120.1.0/24', '10.0.2.1')],
    conditions: { 'node-1': 'False', 'node-2': 'False' },
  },
  {
    id: 'RT-22',
    description: 'single cidr 2 nodes and one route created',
    nodes: [node1, node2],
    initialRoutes: [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1')],
    expected: [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'), r('02', 'node-2', '10.120.1.0/24', '10.0.2.1')],
    conditions: { 'node-1': 'False', 'node-2': 'False' },
  },
  {
    id: 'RT-23',
    description: 'single cidr 2 nodes and no routes',
    nodes: [node1, node2],
    initialRoutes: [],
    expected: [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'), r('02', 'node-2', '10.120.1.0/24', '10.0.2.1')],
    conditions: { 'node-1': 'False', 'node-2': 'False' },
  },
  {
    id: 'RT-24',
    description: 'single cidr 2 nodes and too many routes',
    nodes: [node1, node2],
    initialRoutes: [
      r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'),
      r('02', 'node-2', '10.120.1.0/24', '10.0.2.1'),
      r('03', 'node-3', '10.120.2.0/24', '10.0.3.1'),
      r('04', 'node-4', '10.120.3.0/24', '10.0.4.1'),
    ],
    expected: [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'), r('02', 'node-2', '10.120.1.0/24', '10.0.2.1')],
    conditions: { 'node-1': 'False', 'node-2': 'False' },
  },
  {
    id: 'RT-25',
    description: 'single cidr 2 nodes and 2 routes with 1 incorrect',
    nodes: [node1, node2],
    initialRoutes: [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'), r('03', 'node-3', '10.120.2.0/24', '10.0.2.1')],
    expected: [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'), r('02', 'node-2', '10.120.1.0/24', '10.0.2.1')],
    conditions: { 'node-1': 'False', 'node-2': 'False' },
  },
  {
    id: 'RT-26',
    description: 'single cidr 2 nodes and one node without cidr assigned',
    nodes: [node1, nodeNoCidr],
    initialRoutes: [],
    expected: [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1')],
    conditions: { 'node-1': 'False', 'node-2': null },
  },
  {
    id: 'RT-27',
    description: 'single cidr 2 nodes and an extra blackhole route in our range',
    nodes: [node1, node2],
    initialRoutes: [
      r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'),
      r('02', 'node-2', '10.120.1.0/24', '10.0.2.1'),
      r('03', '', '10.120.2.0/24', '10.0.100.1', { blackhole: true }),
    ],
    expected: [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'), r('02', 'node-2', '10.120.1.0/24', '10.0.2.1')],
    conditions: { 'node-1': 'False', 'node-2': 'False' },
  },
  {
    id: 'RT-28',
    description: 'single cidr 2 nodes and an extra blackhole route not in our range',
    nodes: [node1, node2],
    initialRoutes: [
      r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'),
      r('02', 'node-2', '10.120.1.0/24', '10.0.2.1'),
      r('03', '', '10.1.2.0/24', '10.0.100.1', { blackhole: true }),
    ],
    expected: [
      r('01', 'node-1', '10.120.0.0/24', '10.0.1.1'),
      r('02', 'node-2', '10.120.1.0/24', '10.0.2.1'),
      r('03', '', '10.1.2.0/24', '10.0.100.1', { blackhole: true }),
    ],
    conditions: { 'node-1': 'False', 'node-2': 'False' },
  },
];

describe('NodeRouteController.reconcile (TestReconcile)', () => {
  for (const s of scenarios) {
    it(`${s.id}: ${s.description}`, async () => {
      const { cloud, controller, patches, events } = harness(s);
      await expect(
        controller.reconcile(s.nodes, s.initialRoutes, new AbortController().signal),
      ).resolves.toBeUndefined();
      expect(flatten(await finalRoutes(cloud))).toEqual(flatten(s.expected));
      expect(events).toEqual([]);
      for (const [name, status] of Object.entries(s.conditions)) {
        const written = patches.filter((p) => p.name === name);
        if (status === null) {
          expect(written, `no condition write for ${name}`).toEqual([]);
        } else {
          expect(written, `one condition write for ${name}`).toHaveLength(1);
          expect(written[0]!.body.status.conditions[0]).toMatchObject({ type: 'NetworkUnavailable', status });
        }
      }
    });
  }

  it('RT-29: duplicate pod cidr: two creates, the second conflicts (sticky fake error); reconcile still resolves', async () => {
    const { cloud, controller, events } = harness({ nodes: [nodeDuplicateCIDR] });
    await expect(controller.reconcile([nodeDuplicateCIDR], [], new AbortController().signal)).resolves.toBeUndefined();
    expect(cloud.calls.filter((c) => c === 'create-route')).toHaveLength(2);
    expect(cloud.err?.message).toBe('route "my-k8s-node-4-10.120.1.0/24" already exists');
    // The sticky error makes the next list fail, as upstream's test relies on.
    await expect(controller.reconcileNodeRoutes(new AbortController().signal)).rejects.toThrow(
      'error listing routes: route "my-k8s-node-4-10.120.1.0/24" already exists',
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      object: { apiVersion: 'v1', kind: 'Node', name: 'node-4', uid: '04' },
      type: 'Warning',
      reason: 'FailedToCreateRoute',
    });
    expect(events[0]!.message).toMatch(
      /^Could not create route 04 10\.120\.1\.0\/24 for node node-4 after [0-9.]+(ns|µs|ms|s): route "my-k8s-node-4-10\.120\.1\.0\/24" already exists$/,
    );
  });
});

describe('NodeRouteController pass details', () => {
  it('a failed create raises FailedToCreateRoute and sets NetworkUnavailable=True/NoRouteCreated', async () => {
    const cloud = new FakeCloud();
    const failing: Routes = {
      listRoutes: (c, s) => cloud.listRoutes(c, s),
      deleteRoute: (c, x, s) => cloud.deleteRoute(c, x, s),
      createRoute: async () => {
        throw new Error('quota exceeded');
      },
    };
    const { controller, patches, events } = harness({ nodes: [node1], routes: failing });
    await controller.reconcile([node1], [], new AbortController().signal);
    expect(events.map((e) => e.reason)).toEqual(['FailedToCreateRoute']);
    expect(events[0]!.object).toMatchObject({ apiVersion: 'v1', kind: 'Node', name: 'node-1' });
    expect(events[0]!.message).toContain('Could not create route 01 10.120.0.0/24 for node node-1 after ');
    expect(events[0]!.message).toMatch(/: quota exceeded$/);
    expect(patches).toHaveLength(1);
    expect(patches[0]!.body.status.conditions[0]).toEqual({
      type: 'NetworkUnavailable',
      status: 'True',
      lastHeartbeatTime: '2026-05-06T07:08:09Z',
      lastTransitionTime: '2026-05-06T07:08:09Z',
      reason: 'NoRouteCreated',
      message: 'RouteController failed to create a route',
    });
  });

  it('a node that is only a route target (no Pod CIDRs) gets True/NoRouteCreated and its route is deleted', async () => {
    const { cloud, controller, patches } = harness({
      nodes: [nodeNoCidr],
      initialRoutes: [r('02', 'node-2', '10.120.1.0/24', '10.0.2.1')],
    });
    await controller.reconcile([nodeNoCidr], await cloud.listRoutes(cluster), new AbortController().signal);
    expect(await cloud.listRoutes(cluster)).toEqual([]);
    expect(
      patches.map((p) => [p.name, p.body.status.conditions[0].status, p.body.status.conditions[0].reason]),
    ).toEqual([['node-2', 'True', 'NoRouteCreated']]);
  });

  it('nodes whose condition already matches are not patched', async () => {
    const withCond: V1Node = {
      ...node1,
      status: {
        ...node1.status,
        conditions: [{ type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated' } as V1NodeCondition],
      },
    };
    const { controller, patches } = harness({ nodes: [withCond] });
    await controller.reconcile(
      [withCond],
      [r('01', 'node-1', '10.120.0.0/24', '10.0.1.1')],
      new AbortController().signal,
    );
    expect(patches).toEqual([]);
  });

  it('unparsable routes are never deleted', async () => {
    const bad = r('bad', 'gone', 'not-a-cidr');
    const { cloud, controller } = harness({
      nodes: [node1],
      initialRoutes: [bad, r('01', 'node-1', '10.120.0.0/24')],
    });
    await controller.reconcile([node1], await cloud.listRoutes(cluster), new AbortController().signal);
    expect(cloud.calls).not.toContain('delete-route');
    expect((await cloud.listRoutes(cluster)).map((x) => x.destinationCIDR)).toContain('not-a-cidr');
  });

  it('counts route_controller_route_sync_total once per pass and lists routes with the cluster name', async () => {
    const { cloud, controller } = harness({ nodes: [node1] });
    const before = (await routeSyncTotal.get()).values[0]?.value ?? 0;
    await controller.reconcileNodeRoutes(new AbortController().signal);
    await controller.reconcileNodeRoutes(new AbortController().signal);
    expect((await routeSyncTotal.get()).values[0]?.value).toBe(before + 2);
    expect(cloud.calls.filter((c) => c === 'list-routes')).toHaveLength(2);
    expect(cloud.calls.filter((c) => c === 'create-route')).toHaveLength(1);
  });

  it('at most 200 cloud route operations run at once (deletes and creates share the limit)', async () => {
    const nodes = Array.from({ length: 300 }, (_, i) =>
      mkNode(`n-${i}`, `u-${i}`, [`10.120.${i >> 4}.${(i & 15) * 16}/28`], `10.0.0.${i & 255}`),
    );
    const stale = Array.from({ length: 150 }, (_, i) => r(`s${i}`, `gone-${i}`, `10.120.200.${i}/32`));
    let inFlight = 0;
    let maxInFlight = 0;
    let creates = 0;
    let deletes = 0;
    const slow = async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((res) => setTimeout(res, 5));
      inFlight--;
    };
    const routes: Routes = {
      listRoutes: async () => stale,
      createRoute: async () => {
        creates++;
        await slow();
      },
      deleteRoute: async () => {
        deletes++;
        await slow();
      },
    };
    const { controller, patches } = harness({ nodes, routes });
    await controller.reconcile(nodes, stale, new AbortController().signal);
    expect(creates).toBe(300);
    expect(deletes).toBe(150);
    expect(maxInFlight).toBe(200);
    expect(patches).toHaveLength(300);
  });

  it('creates wait for deletes when routes[0] enables node addresses (update = delete then create)', async () => {
    const order: string[] = [];
    const cloud = new FakeCloud();
    const routes: Routes = {
      listRoutes: (c, s) => cloud.listRoutes(c, s),
      deleteRoute: async (c, x, s) => {
        await new Promise((res) => setTimeout(res, 20));
        order.push(`delete ${x.destinationCIDR}`);
        await cloud.deleteRoute(c, x, s);
      },
      createRoute: async (c, h, x, s) => {
        order.push(`create ${x.destinationCIDR}`);
        await cloud.createRoute(c, h, x, s);
      },
    };
    const initial = [r('01', 'node-1', '10.120.0.0/24', '10.0.1.9', { enableNodeAddresses: true })];
    for (const x of initial) cloud.routeMap.set(x.name!, { clusterName: cluster, route: x });
    const { controller } = harness({ nodes: [node1, node2], routes });
    await controller.reconcile([node1, node2], initial, new AbortController().signal);
    expect(order).toEqual(['delete 10.120.0.0/24', 'create 10.120.0.0/24', 'create 10.120.1.0/24']);
    expect(flatten(await cloud.listRoutes(cluster))).toEqual(
      flatten([r('a', 'node-1', '10.120.0.0/24', '10.0.1.1'), r('b', 'node-2', '10.120.1.0/24', '10.0.2.1')]),
    );
  });

  it('nodeOwnership: foreign nodes get no route or condition, and routes targeting them are kept', async () => {
    const foreign = mkNode('foreign-1', 'f1', ['10.120.9.0/24'], '10.0.9.1');
    const initial = [r('f', 'foreign-1', '10.120.9.0/24', '10.0.9.1'), r('g', 'gone', '10.120.8.0/24')];
    const { cloud, controller, patches } = harness({
      nodes: [node1, foreign],
      initialRoutes: initial,
      nodeOwnership: (n) => n.metadata?.name !== 'foreign-1',
    });
    await controller.reconcile([node1, foreign], await cloud.listRoutes(cluster), new AbortController().signal);
    expect(flatten(await cloud.listRoutes(cluster))).toEqual(
      flatten([r('f', 'foreign-1', '10.120.9.0/24', '10.0.9.1'), r('1', 'node-1', '10.120.0.0/24', '10.0.1.1')]),
    );
    expect(patches.map((p) => p.name)).toEqual(['node-1']);
  });

  it('an aborted signal stops new cloud operations and condition writes', async () => {
    const { cloud, controller, patches } = harness({ nodes: [node1, node2] });
    const ac = new AbortController();
    ac.abort();
    await controller.reconcile([node1, node2], [], ac.signal);
    expect(cloud.calls).toEqual([]);
    expect(patches).toEqual([]);
  });

  it('the constructor refuses an empty cluster CIDR list', () => {
    expect(
      () =>
        new NodeRouteController({
          cloud: new FakeCloud(),
          client: {} as NodeRouteApi,
          informers: { nodes: () => new MemoryInformer<V1Node>() },
          recorder: new RecordingEventRecorder(),
          logger: silent,
          config: { clusterName: cluster, clusterCIDRs: [] },
        }),
    ).toThrow('RouteController: Must specify clusterCIDR.');
  });
});

describe('updateNetworkingCondition (TestUpdateNetworkingCondition)', () => {
  const base: V1Node = { metadata: { name: 'test-node' }, status: {} };
  const withCondition = (status: string, reason: string): V1Node => ({
    ...base,
    status: { conditions: [{ type: 'NetworkUnavailable', status, reason } as V1NodeCondition] },
  });
  const cases: Array<[string, string, V1Node, boolean, null | ['True' | 'False', string, string]]> = [
    [
      'RT-34',
      'No existing condition, routes created - should update',
      base,
      true,
      ['False', 'RouteCreated', 'RouteController created a route'],
    ],
    [
      'RT-35',
      'No existing condition, routes not created - should update',
      base,
      false,
      ['True', 'NoRouteCreated', 'RouteController failed to create a route'],
    ],
    [
      'RT-36',
      'Existing condition with same status and reason (RouteCreated) - should not update',
      withCondition('False', 'RouteCreated'),
      true,
      null,
    ],
    [
      'RT-37',
      'Existing condition with same status but different reason (CalicoIsUp) - should update',
      withCondition('False', 'CalicoIsUp'),
      true,
      ['False', 'RouteCreated', 'RouteController created a route'],
    ],
    [
      'RT-38',
      'Existing condition with Status=False but different reason - should update when routes created',
      withCondition('False', 'ExternalCNI'),
      true,
      ['False', 'RouteCreated', 'RouteController created a route'],
    ],
    [
      'RT-39',
      'Existing condition with Status=True and different reason - should update when routes not created',
      withCondition('True', 'SomeOtherReason'),
      false,
      ['True', 'NoRouteCreated', 'RouteController failed to create a route'],
    ],
    [
      'RT-40',
      'Existing condition with Status=False, transitioning to routes not created - should update',
      withCondition('False', 'RouteCreated'),
      false,
      ['True', 'NoRouteCreated', 'RouteController failed to create a route'],
    ],
    [
      'RT-41',
      'Existing condition with Status=True and NoRouteCreated reason - should not update',
      withCondition('True', 'NoRouteCreated'),
      false,
      null,
    ],
    [
      'RT-42',
      'TestUpdateNetworkingConditionWithCalicoScenario',
      withCondition('False', 'CalicoIsUp'),
      true,
      ['False', 'RouteCreated', 'RouteController created a route'],
    ],
  ];
  for (const [id, description, node, routesCreated, want] of cases) {
    it(`${id}: ${description}`, async () => {
      const { controller, patches } = harness({ nodes: [node] });
      await controller.updateNetworkingCondition(node, routesCreated, new AbortController().signal);
      if (want === null) {
        expect(patches).toHaveLength(0);
        return;
      }
      expect(patches).toHaveLength(1);
      expect(patches[0]!.name).toBe('test-node');
      const c = patches[0]!.body.status.conditions[0];
      expect([c.status, c.reason, c.message]).toEqual(want);
      expect(c.lastTransitionTime).toBe('2026-05-06T07:08:09Z');
      expect(c.lastHeartbeatTime).toBe('2026-05-06T07:08:09Z');
    });
  }

  it('retries the patch on a Conflict and throws other errors after logging', async () => {
    let attempts = 0;
    const conflict = new ApiException(409, 'Conflict', '{"kind":"Status","reason":"Conflict","code":409}', {});
    const { controller } = harness({
      nodes: [base],
      patch: async () => {
        attempts++;
        if (attempts === 1) throw conflict;
      },
    });
    await controller.updateNetworkingCondition(base, true, new AbortController().signal);
    expect(attempts).toBe(2);
    const { controller: c2 } = harness({
      nodes: [base],
      patch: async () => {
        throw new Error('boom');
      },
    });
    await expect(c2.updateNetworkingCondition(base, true, new AbortController().signal)).rejects.toThrow('boom');
  });

  it('sends the patch through a raw client without parsing the answer, which it does not read', async () => {
    // A server whose answer to the status patch is not JSON: parsing it would fail the write.
    const sent: Array<{ method: string; url: string; body: unknown }> = [];
    const client = new CoreV1Client({
      server: 'https://api.test',
      authenticate: async () => {},
      send: async (req: { getHttpMethod(): string; getUrl(): string; getBody(): unknown }) => {
        sent.push({ method: req.getHttpMethod(), url: req.getUrl(), body: JSON.parse(String(req.getBody())) });
        return {
          status: 200,
          headers: new Map(),
          bytes: async () => Buffer.from('not json'),
          text: async () => 'not json',
        };
      },
    } as never);
    const controller = new NodeRouteController({
      cloud: new FakeCloud(),
      client,
      informers: { nodes: () => new MemoryInformer([base]) },
      recorder: new RecordingEventRecorder(),
      logger: silent,
      config: { clusterName: cluster, clusterCIDRs: parseClusterCIDRs('10.120.0.0/16') },
      now: () => new Date('2026-05-06T07:08:09Z'),
    });
    await controller.updateNetworkingCondition(base, true, new AbortController().signal);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      method: 'PATCH',
      url: 'https://api.test/api/v1/nodes/test-node/status',
      body: { status: { conditions: [{ type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated' }] } },
    });
  });
});

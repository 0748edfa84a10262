/**
 * The whole stack: a real kube-apiserver, the mock cloud API, and ccm-kit's cloud-controller-manager
 * running the mockcloud provider with the tagger enabled (`--controllers=*,mockcloud-tagger-controller`).
 */
import { startCloudControllerManager } from '@ccm-kit/app';
import { patchOptions } from '@ccm-kit/runtime/client';
import { TAINT_EXTERNAL_CLOUD_PROVIDER } from '@ccm-kit/cloud-provider';
import { type ControlPlane, isGone, RecordingLogger } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import {
  ANNOTATION_LOAD_BALANCER_ID,
  ANNOTATION_PROXY_PROTOCOL,
  LABEL_NODE_NAME,
  MockCloudProvider,
  parseConfig,
  taggerController,
} from '../src/index.js';
import { startApi, TOKEN } from './helpers.js';

const controlPlane = useControlPlane();
let cp: ControlPlane;
let api: MockCloudApiServer;

beforeAll(async () => {
  cp = controlPlane();
  api = await startApi({ provisioningDelayMs: 1_500 });
});
afterAll(async () => {
  await api?.close();
});

it('initializes Nodes, provisions a load balancer, tags servers, and never deletes a Node on an auth error', async () => {
  const server = api.state.addServer({ name: 'mc-node-1', zone: 'eu-1a', region: 'eu-1', type: 'cx22' });
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNode({
    body: {
      metadata: { name: 'mc-node-1' },
      spec: { taints: [{ key: TAINT_EXTERNAL_CLOUD_PROVIDER, value: 'true', effect: 'NoSchedule' }] },
    },
  });
  const config = parseConfig(
    [
      `apiURL: ${api.url}`,
      `token: ${TOKEN}`,
      'clusterID: e2e',
      'instancesCacheMaxAgeMs: 500',
      'retry: { retries: 1, minDelayMs: 10, maxDelayMs: 50 }',
      'loadBalancer: { provisioningRetryMs: 300 }',
      'tagger: { periodMs: 1000 }',
    ].join('\n'),
    {},
  );
  const cloud = new MockCloudProvider(config, { logger: new RecordingLogger() });
  const ccm = await startCloudControllerManager({
    argv: [
      '--cloud-provider=mockcloud',
      '--leader-elect=false',
      '--configure-cloud-routes=false',
      '--secure-port=0',
      '--node-monitor-period=1s',
      '--controllers=*,mockcloud-tagger-controller',
    ],
    cloud,
    kubeConfig: cp.kubeConfig,
    controllers: [taggerController],
  });
  try {
    // cloud-node-controller: providerID, topology labels and addresses from the server; taint removed.
    const initialized = await eventuallyValue(async () => {
      const n = await core.readNode({ name: 'mc-node-1' });
      // The addresses follow in a separate status patch: wait for them too.
      const done =
        !!n.spec?.providerID &&
        !n.spec.taints?.some((t) => t.key === TAINT_EXTERNAL_CLOUD_PROVIDER) &&
        !!n.status?.addresses?.length;
      return done ? n : undefined;
    }, 'the Node to be initialized');
    expect(initialized.spec?.providerID).toBe(`mockcloud://${server.id}`);
    expect(initialized.metadata?.labels).toMatchObject({
      'topology.kubernetes.io/zone': 'eu-1a',
      'topology.kubernetes.io/region': 'eu-1',
      'node.kubernetes.io/instance-type': 'cx22',
    });
    expect(initialized.status?.addresses).toContainEqual({ type: 'InternalIP', address: server.private_ip });

    // mockcloud-tagger-controller: the server learns its Node's name.
    await eventuallyValue(
      async () => api.state.getServer(server.id)!.labels[LABEL_NODE_NAME] === 'mc-node-1',
      'the server to be tagged',
    );

    // service-lb-controller: provisioning (RetryError), then the IP; the LB ID is written back to the Service.
    await core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port: 80, protocol: 'TCP' }] },
      },
    });
    const svc = await eventuallyValue(async () => {
      const s = await core.readNamespacedService({ name: 'web', namespace: 'default' });
      return s.status?.loadBalancer?.ingress?.[0]?.ip ? s : undefined;
    }, 'the Service to get its IP');
    const lbID = svc.metadata?.annotations?.[ANNOTATION_LOAD_BALANCER_ID];
    expect(lbID).toBeDefined();
    const lb = api.state.getLoadBalancer(lbID!)!;
    expect(svc.status?.loadBalancer?.ingress?.[0]?.ip).toBe(lb.public_ip);
    expect(lb.listeners).toEqual([
      { protocol: 'tcp', port: 80, target_port: svc.spec!.ports![0]!.nodePort, proxy_protocol: false },
    ]);
    await eventuallyValue(
      async () => api.state.getLoadBalancer(lbID!)!.targets.length === 1,
      'the Node to be a target',
    );
    expect(api.state.getLoadBalancer(lbID!)!.targets).toEqual([{ server_id: server.id }]);
    expect(api.requests().filter((r) => r.method === 'POST')).toHaveLength(1);

    // The #1 real-world bug: the token stops working. The Node must survive several monitor periods.
    api.revokeToken(TOKEN);
    const revokedAt = Date.now();
    await new Promise((r) => setTimeout(r, 4_000));
    expect(api.requests().some((r) => r.time > revokedAt && r.status === 401 && r.path.startsWith('/v1/servers'))).toBe(
      true,
    );
    expect((await core.readNode({ name: 'mc-node-1' })).metadata?.name).toBe('mc-node-1');

    // Once the cloud really says the server is gone, the Node is deleted.
    api.addToken(TOKEN);
    api.state.removeServer(server.id);
    await eventuallyValue(() => isGone(core.readNode({ name: 'mc-node-1' })), 'the Node to be deleted');

    // Deleting the Service deletes the load balancer, and the finalizer is released.
    await core.deleteNamespacedService({ name: 'web', namespace: 'default' });
    await eventuallyValue(
      () => isGone(core.readNamespacedService({ name: 'web', namespace: 'default' })),
      'the Service to be gone',
    );
    expect(api.state.listLoadBalancers()).toEqual([]);
  } finally {
    await ccm.stop();
  }
  await ccm.done;
}, 120_000);

/** A manager running only service-lb-controller (4 workers) with the mockcloud provider for `clusterID`. */
function startServiceLbManager(clusterID: string) {
  const config = parseConfig(
    [
      `apiURL: ${api.url}`,
      `token: ${TOKEN}`,
      `clusterID: ${clusterID}`,
      'retry: { retries: 8, minDelayMs: 10, maxDelayMs: 50 }',
      'loadBalancer: { provisioningRetryMs: 300 }',
    ].join('\n'),
    {},
  );
  return startCloudControllerManager({
    argv: [
      '--cloud-provider=mockcloud',
      '--leader-elect=false',
      '--configure-cloud-routes=false',
      '--secure-port=0',
      '--controllers=service-lb-controller',
      '--concurrent-service-syncs=4',
    ],
    cloud: new MockCloudProvider(config, { logger: new RecordingLogger() }),
    kubeConfig: cp.kubeConfig,
  });
}

it('gives a Service switched LoadBalancer -> ClusterIP -> LoadBalancer a new load balancer (the recorded ID goes with the old one; regression: chaos seed 20261124)', async () => {
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const ccm = await startServiceLbManager('e2e-round-trip');
  const read = () => core.readNamespacedService({ name: 'round-trip', namespace: 'default' });
  const setType = (type: string) =>
    core.patchNamespacedService(
      { name: 'round-trip', namespace: 'default', body: { spec: { type } } },
      patchOptions('merge'),
    );
  const withIngress = (what: string) =>
    eventuallyValue(async () => {
      const s = await read();
      return s.status?.loadBalancer?.ingress?.[0]?.ip && s.metadata?.annotations?.[ANNOTATION_LOAD_BALANCER_ID]
        ? s
        : undefined;
    }, what);
  try {
    await core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: 'round-trip' },
        spec: { type: 'LoadBalancer', selector: { app: 'rt' }, ports: [{ port: 80, protocol: 'TCP' }] },
      },
    });
    const first = (await withIngress('the first load balancer')).metadata!.annotations![ANNOTATION_LOAD_BALANCER_ID]!;

    await setType('ClusterIP');
    const cleared = await eventuallyValue(async () => {
      const s = await read();
      return !api.state.getLoadBalancer(first) && !s.metadata?.finalizers?.length ? s : undefined;
    }, 'the load balancer and the finalizer to be gone');
    expect(cleared.metadata?.annotations?.[ANNOTATION_LOAD_BALANCER_ID]).toBeUndefined();

    await setType('LoadBalancer');
    const second = await withIngress('a new load balancer');
    const id = second.metadata!.annotations![ANNOTATION_LOAD_BALANCER_ID]!;
    expect(id).not.toBe(first);
    expect(second.status?.loadBalancer?.ingress?.[0]?.ip).toBe(api.state.getLoadBalancer(id)!.public_ip);
    await core.deleteNamespacedService({ name: 'round-trip', namespace: 'default' });
    await eventuallyValue(() => isGone(read()), 'the Service to be gone');
    expect(api.state.getLoadBalancer(id)).toBeUndefined();
  } finally {
    await ccm.stop();
  }
  await ccm.done;
}, 90_000);

it('refuses a Service asking for loadBalancerSourceRanges (mockcloud has no firewall): no load balancer, a Warning Event; without the ranges it gets one', async () => {
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const ccm = await startServiceLbManager('e2e-ranges');
  const read = () => core.readNamespacedService({ name: 'ranged', namespace: 'default' });
  const lbRequests = (since: number) =>
    api.requests().filter((r) => r.time >= since && r.path.includes('/load_balancers'));
  try {
    const count = api.state.listLoadBalancers().length;
    const since = Date.now();
    await core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: 'ranged' },
        spec: {
          type: 'LoadBalancer',
          selector: { app: 'ranged' },
          loadBalancerSourceRanges: ['203.0.113.0/24'],
          ports: [{ port: 80, protocol: 'TCP' }],
        },
      },
    });
    const warning = await eventuallyValue(
      async () =>
        (await core.listNamespacedEvent({ namespace: 'default' })).items.find(
          (e) => e.involvedObject.name === 'ranged' && e.reason === 'UnsupportedServiceField',
        ),
      'the UnsupportedServiceField Warning',
    );
    expect(warning.type).toBe('Warning');
    expect(warning.message).toBe(
      'Refusing to ensure a load balancer: provider "mockcloud" does not support spec.loadBalancerSourceRanges=203.0.113.0/24 (the load balancer would accept clients from every address). No load balancer is created or changed until the Service no longer asks for it',
    );
    await new Promise((r) => setTimeout(r, 2_000));
    expect(lbRequests(since)).toEqual([]);
    expect(api.state.listLoadBalancers()).toHaveLength(count);
    const refused = await read();
    expect(refused.metadata?.finalizers ?? []).toEqual([]);
    expect(refused.status?.loadBalancer?.ingress ?? []).toEqual([]);

    await core.patchNamespacedService(
      { name: 'ranged', namespace: 'default', body: { spec: { loadBalancerSourceRanges: null } } },
      patchOptions('merge'),
    );
    const served = await eventuallyValue(async () => {
      const s = await read();
      return s.status?.loadBalancer?.ingress?.[0]?.ip ? s : undefined;
    }, 'a load balancer once the ranges are gone');
    expect(api.state.listLoadBalancers()).toHaveLength(count + 1);
    await core.deleteNamespacedService({ name: 'ranged', namespace: 'default' });
    await eventuallyValue(() => isGone(read()), 'the Service to be gone');
    expect(api.state.getLoadBalancer(served.metadata!.annotations![ANNOTATION_LOAD_BALANCER_ID]!)).toBeUndefined();
  } finally {
    await ccm.stop();
  }
  await ccm.done;
}, 90_000);

it('absorbs a 429 storm without a failed reconcile, and turns bad annotations into Warning Events without touching the cloud', async () => {
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const ccm = await startServiceLbManager('e2e-annotations');
  const events = async (name: string): Promise<CoreV1Event[]> =>
    (await core.listNamespacedEvent({ namespace: 'default' })).items.filter((e) => e.involvedObject.name === name);
  const ip = (name: string) =>
    eventuallyValue(async () => {
      const s = await core.readNamespacedService({ name, namespace: 'default' });
      return s.status?.loadBalancer?.ingress?.[0]?.ip ? s : undefined;
    }, `${name} to get its IP`);
  const lbService = (name: string, annotations: Record<string, string> = {}) =>
    core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name, annotations },
        spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ port: 80, protocol: 'TCP' }] },
      },
    });
  try {
    // A storm: 3 requests per second for the whole account, answered 429 with Retry-After beyond that.
    api.faults.setRateLimit({ limit: 3, windowMs: 1_000 });
    const storm = ['storm-a', 'storm-b', 'storm-c', 'storm-d'];
    const startedAt = Date.now();
    for (const name of storm) await lbService(name);
    for (const name of storm) await ip(name);
    api.faults.setRateLimit(undefined);
    expect(api.requests().filter((r) => r.time >= startedAt && r.status === 429).length).toBeGreaterThan(0);
    for (const name of storm) {
      // Upstream records a RetryError ("still provisioning") as SyncLoadBalancerFailed too; any other failure
      // (a 429 that reached the controller) would be a failed reconcile.
      const failures = (await events(name)).filter(
        (e) => e.reason === 'SyncLoadBalancerFailed' && !e.message?.endsWith('is still provisioning'),
      );
      expect(failures).toEqual([]);
    }

    // An invalid annotation on a provisioned Service: a Warning Event naming it; the load balancer keeps
    // its last good configuration.
    const good = await ip('storm-a');
    const lbID = good.metadata!.annotations![ANNOTATION_LOAD_BALANCER_ID]!;
    const before = structuredClone(api.state.getLoadBalancer(lbID));
    await core.patchNamespacedService(
      {
        name: 'storm-a',
        namespace: 'default',
        body: { metadata: { annotations: { [ANNOTATION_PROXY_PROTOCOL]: 'maybe' } } },
      },
      patchOptions('merge'),
    );
    const warning = await eventuallyValue(
      async () =>
        (await events('storm-a')).find(
          (e) =>
            e.type === 'Warning' &&
            e.reason === 'SyncLoadBalancerFailed' &&
            e.message?.includes(ANNOTATION_PROXY_PROTOCOL),
        ),
      'the Warning Event for the bad annotation',
    );
    expect(warning.message).toContain(
      `Error syncing load balancer: failed to ensure load balancer: mockcloud: service default/storm-a: annotation ${ANNOTATION_PROXY_PROTOCOL}: "maybe" is not "true" or "false"`,
    );
    expect(api.state.getLoadBalancer(lbID)).toEqual(before);

    // A typo'd load-balancer ID: a Warning Event, and no new (billable) load balancer.
    const count = api.state.listLoadBalancers().length;
    await lbService('typo', { [ANNOTATION_LOAD_BALANCER_ID]: 'lb-99999' });
    const typo = await eventuallyValue(
      async () => (await events('typo')).find((e) => e.type === 'Warning' && e.reason === 'SyncLoadBalancerFailed'),
      'the Warning Event for the unknown ID',
    );
    expect(typo.message).toContain('load balancer "lb-99999" does not exist');
    // The "." ID: a Warning Event, and the Service can still be deleted (it used to be pinned forever).
    await lbService('dot', { [ANNOTATION_LOAD_BALANCER_ID]: '.' });
    const dot = await eventuallyValue(
      async () => (await events('dot')).find((e) => e.type === 'Warning' && e.reason === 'SyncLoadBalancerFailed'),
      'the Warning Event for the malformed ID',
    );
    expect(dot.message).toContain(`annotation ${ANNOTATION_LOAD_BALANCER_ID}: "." is not a mockcloud ID`);
    expect(api.state.listLoadBalancers()).toHaveLength(count);
    for (const name of ['dot', 'typo']) {
      await core.deleteNamespacedService({ name, namespace: 'default' });
      await eventuallyValue(
        () => isGone(core.readNamespacedService({ name, namespace: 'default' })),
        `${name} to be gone`,
      );
    }
    expect(api.state.listLoadBalancers()).toHaveLength(count);
  } finally {
    await ccm.stop();
  }
  await ccm.done;
}, 120_000);

it('node-ipam-controller and node-route-controller: a Node without a Pod CIDR gets one, routed through the VPC route table; the route goes with the Node', async () => {
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const server = api.state.addServer({ name: 'mc-route-node' });
  await core.createNode({ body: { metadata: { name: 'mc-route-node' } } });
  const config = parseConfig(
    [`apiURL: ${api.url}`, `token: ${TOKEN}`, 'clusterID: e2e-routes', 'instancesCacheMaxAgeMs: 0'].join('\n'),
    {},
  );
  const ccm = await startCloudControllerManager({
    argv: [
      '--cloud-provider=mockcloud',
      '--leader-elect=false',
      '--secure-port=0',
      '--controllers=node-route-controller,node-ipam-controller',
      '--configure-cloud-routes=true',
      '--allocate-node-cidrs=true',
      '--cluster-cidr=10.244.0.0/16',
      '--route-reconciliation-period=1s',
    ],
    cloud: new MockCloudProvider(config, { logger: new RecordingLogger() }),
    kubeConfig: cp.kubeConfig,
  });
  try {
    const podCIDR = await eventuallyValue(
      async () => (await core.readNode({ name: 'mc-route-node' })).spec?.podCIDR,
      'the allocated Pod CIDR',
    );
    expect(podCIDR).toMatch(/^10\.244\.\d+\.0\/24$/);
    await eventuallyValue(
      async () =>
        api.state.listRoutes().some((r) => r.destination_cidr === podCIDR && r.target_server_id === server.id),
      'the route to be created',
    );
    const condition = await eventuallyValue(
      async () =>
        (await core.readNode({ name: 'mc-route-node' })).status?.conditions?.find(
          (c) => c.type === 'NetworkUnavailable' && c.status === 'False',
        ),
      'NetworkUnavailable=False',
    );
    expect(condition.reason).toBe('RouteCreated');
    // A route of another cluster in the same VPC is never touched.
    api.state.createRoute({
      name: 'foreign',
      labels: { 'mockcloud.ccm-kit.io/cluster-id': 'someone-else' },
      destination_cidr: '10.244.99.0/24',
      target_server_id: server.id,
    });
    await core.deleteNode({ name: 'mc-route-node' });
    await eventuallyValue(
      async () => api.state.listRoutes().every((r) => r.destination_cidr !== podCIDR),
      'the route to be deleted',
    );
    expect(api.state.listRoutes().map((r) => r.name)).toEqual(['foreign']);
  } finally {
    await ccm.stop();
  }
  await ccm.done;
}, 120_000);

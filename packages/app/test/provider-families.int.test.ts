/**
 * The provider families of docs/provider-families.md, each as a FakeCloud facet set, run through
 * startCloudControllerManager and the four built-in controllers against one real kube-apiserver: the Node is
 * initialized with what the set can give, absent facets are skipped with upstream's log line, nothing crashes.
 */
import { type CapturedLogs, captureLogs, FakeCloud, isGone } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudControllerManager } from '../src/index.js';

/** The facets a family provides (docs/provider-families.md; conditional facets as in their default setup). */
interface Family {
  name: string;
  instances: boolean;
  instancesV2: boolean;
  zones: boolean;
  loadBalancer: boolean;
  routes: boolean;
  clusters: boolean;
}

const FAMILIES: Family[] = [
  { name: 'gce', instances: true, instancesV2: true, zones: true, loadBalancer: true, routes: true, clusters: true },
  { name: 'aws', instances: true, instancesV2: true, zones: true, loadBalancer: true, routes: true, clusters: false },
  { name: 'azure', instances: true, instancesV2: true, zones: true, loadBalancer: true, routes: true, clusters: false },
  {
    name: 'openstack',
    instances: false,
    instancesV2: true,
    zones: false,
    loadBalancer: true,
    routes: true,
    clusters: false,
  },
  {
    name: 'vsphere',
    instances: true,
    instancesV2: false,
    zones: true,
    loadBalancer: false,
    routes: false,
    clusters: false,
  },
  {
    name: 'mesos',
    instances: true,
    instancesV2: false,
    zones: false,
    loadBalancer: false,
    routes: false,
    clusters: true,
  },
  {
    name: 'cloudstack',
    instances: true,
    instancesV2: false,
    zones: true,
    loadBalancer: true,
    routes: false,
    clusters: false,
  },
  {
    name: 'ovirt',
    instances: true,
    instancesV2: false,
    zones: false,
    loadBalancer: false,
    routes: false,
    clusters: false,
  },
  {
    name: 'photon',
    instances: true,
    instancesV2: false,
    zones: true,
    loadBalancer: false,
    routes: false,
    clusters: false,
  },
  {
    name: 'rackspace',
    instances: true,
    instancesV2: false,
    zones: true,
    loadBalancer: false,
    routes: false,
    clusters: false,
  },
  {
    name: 'rancher',
    instances: true,
    instancesV2: false,
    zones: true,
    loadBalancer: true,
    routes: false,
    clusters: false,
  },
  {
    name: 'baiducloud',
    instances: true,
    instancesV2: false,
    zones: true,
    loadBalancer: true,
    routes: true,
    clusters: false,
  },
];

const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';
const NO_LB = 'the cloud provider does not support external load balancers';
const NO_ROUTES =
  '--configure-cloud-routes is set, but cloud provider does not support routes. Will not configure cloud provider routes.';

const controlPlane = useControlPlane();
let core: CoreV1Api;
let logs: CapturedLogs;

beforeAll(() => {
  core = controlPlane().kubeConfig.makeApiClient(CoreV1Api);
  logs = captureLogs();
});
afterAll(() => {
  logs.restore();
});

function cloudFor(f: Family, node: string): FakeCloud {
  const cloud = new FakeCloud({
    provider: 'fake',
    enableInstancesV2: f.instancesV2,
    disableInstances: !f.instances,
    disableZones: !f.zones,
    disableLoadBalancers: !f.loadBalancer,
    disableRoutes: !f.routes,
    disableClusters: !f.clusters,
    externalIP: '203.0.113.10',
  });
  cloud.setInstance(node, {
    providerID: `fake://${node}`,
    instanceType: 'standard-2',
    zone: 'zone-a',
    region: 'region-1',
    addresses: [{ type: 'InternalIP', address: '10.0.0.7' }],
  });
  return cloud;
}

describe('provider families through the app and the four controllers', () => {
  it.each(FAMILIES.map((f, i) => [f.name, f, i] as const))(
    '%s',
    async (_name, f, i) => {
      const node = `${f.name}-node`;
      const svc = `${f.name}-lb`;
      const podCIDR = `10.244.${i}.0/24`;
      const cloud = cloudFor(f, node);
      await core.createNode({
        body: {
          metadata: { name: node },
          spec: { podCIDR, taints: [{ key: UNINITIALIZED, value: 'true', effect: 'NoSchedule' }] },
        },
      });
      await core.createNamespacedService({
        namespace: 'default',
        body: {
          metadata: { name: svc },
          spec: { type: 'LoadBalancer', selector: { app: svc }, ports: [{ port: 80, protocol: 'TCP' }] },
        },
      });
      const from = logs.lines.length;
      const ccm = await startCloudControllerManager({
        argv: [
          '--cloud-provider=fake',
          '--leader-elect=false',
          '--secure-port=0',
          '--configure-cloud-routes=true',
          '--allocate-node-cidrs=true',
          '--cluster-cidr=10.244.0.0/16',
          '--route-reconciliation-period=1s',
          '--node-monitor-period=1s',
        ],
        cloud,
        kubeConfig: controlPlane().kubeConfig,
      });
      let crashed: unknown;
      void ccm.done.catch((err: unknown) => {
        crashed = err;
      });
      const logged = () => logs.lines.slice(from).join('\n');
      try {
        // cloud-node-controller: what the facet set can give.
        // The addresses follow the taint removal in a separate status patch, as upstream: wait for both.
        const initialized = await eventuallyValue(async () => {
          const n = await core.readNode({ name: node });
          const tainted = n.spec?.taints?.some((t) => t.key === UNINITIALIZED);
          return tainted || !n.status?.addresses?.length ? undefined : n;
        }, `${node} to be initialized`);
        expect(initialized.spec?.providerID).toBe(`fake://${node}`);
        expect(initialized.metadata?.labels?.['node.kubernetes.io/instance-type']).toBe('standard-2');
        expect(initialized.status?.addresses).toContainEqual({ type: 'InternalIP', address: '10.0.0.7' });
        const zoned = f.instancesV2 || f.zones;
        expect(initialized.metadata?.labels?.['topology.kubernetes.io/zone']).toBe(zoned ? 'zone-a' : undefined);
        expect(initialized.metadata?.labels?.['topology.kubernetes.io/region']).toBe(zoned ? 'region-1' : undefined);

        // service-lb-controller: provisions, or is skipped with upstream's line.
        if (f.loadBalancer) {
          await eventuallyValue(async () => {
            const s = await core.readNamespacedService({ name: svc, namespace: 'default' });
            return s.status?.loadBalancer?.ingress?.[0]?.ip === '203.0.113.10';
          }, `${svc} to get its IP`);
        } else {
          await eventuallyValue(
            async () => logged().includes(`"Failed to start service controller" err="${NO_LB}"`),
            'the service controller to be skipped',
          );
          const s = await core.readNamespacedService({ name: svc, namespace: 'default' });
          expect(s.metadata?.finalizers ?? []).toEqual([]);
          expect(s.status?.loadBalancer?.ingress ?? []).toEqual([]);
        }

        // node-route-controller: a route to the Node's pod CIDR, or skipped with upstream's line.
        if (f.routes) {
          await eventuallyValue(
            async () =>
              [...cloud.routeMap.values()].some(
                (r) => r.route.targetNode === node && r.route.destinationCIDR === podCIDR,
              ),
            `a route for ${node}`,
          );
        } else {
          await eventuallyValue(async () => logged().includes(NO_ROUTES), 'the route controller to be skipped');
          expect(cloud.routeMap.size).toBe(0);
        }

        // cloud-node-lifecycle-controller: runs (the machine exists), and never deletes the Node.
        expect(logged()).not.toContain('Failed to start cloud node lifecycle controller');
        await new Promise((r) => setTimeout(r, 1_500));
        expect((await core.readNode({ name: node })).metadata?.name).toBe(node);
        expect(crashed).toBeUndefined();

        await core.deleteNamespacedService({ name: svc, namespace: 'default' });
        await eventuallyValue(
          () => isGone(core.readNamespacedService({ name: svc, namespace: 'default' })),
          `${svc} to be gone`,
        );
      } finally {
        await ccm.stop();
      }
      await ccm.done;
      expect(crashed).toBeUndefined();
      await core.deleteNode({ name: node });
    },
    90_000,
  );

  it("skips both instance controllers with upstream's line for a set without Instances or InstancesV2", async () => {
    const from = logs.lines.length;
    const cloud = new FakeCloud({ disableInstances: true, disableZones: true, disableRoutes: true });
    const ccm = await startCloudControllerManager({
      argv: ['--cloud-provider=fake', '--leader-elect=false', '--secure-port=0', '--configure-cloud-routes=false'],
      cloud,
      kubeConfig: controlPlane().kubeConfig,
    });
    try {
      // One klog line each: the message, the controller's own logger name (derived once from the manager's), and
      // upstream's error; the keys' order is the log format's (docs/decisions/0070), not asserted.
      const skipped = (msg: string, controller: string) =>
        logs.lines
          .slice(from)
          .some(
            (l) =>
              l.includes(`"${msg}"`) &&
              l.includes(` logger="cloud-controller-manager/${controller}"`) &&
              l.includes(' err="cloud provider does not support instances"'),
          );
      await eventuallyValue(
        () =>
          skipped('Failed to start cloud node controller', 'cloud-node-controller') &&
          skipped('Failed to start cloud node lifecycle controller', 'cloud-node-lifecycle-controller'),
        'both instance controllers to be skipped',
      );
    } finally {
      await ccm.stop();
    }
    await ccm.done;
  }, 60_000);
});

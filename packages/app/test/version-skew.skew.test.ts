/**
 * The version-skew suite (`npm run test:skew`, docs/compatibility.md): the whole manager, in-process with a
 * FakeCloud, against each Kubernetes minor built by tools/envtest (`CCM_KIT_SKEW_VERSIONS`, default every pinned
 * one): leader election, node initialization, a LoadBalancer Service, routes, the node lifecycle, and the
 * informers' initial sync (WatchList streaming, or client-go's fallback to LIST + WATCH where the server does not
 * stream). Each version gets its own control plane, one after the other.
 */
import type { CloudControllerManager } from '@ccm-kit/app';
import { type CapturedLogs, captureLogs, type ControlPlane, FakeCloud } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoordinationV1Api, CoreV1Api, VersionApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudControllerManager } from '../src/index.js';
import { skewVersions } from './skew-versions.js';

const UNINITIALIZED = { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };

describe.each(skewVersions())('Kubernetes %s', (version) => {
  const controlPlane = useControlPlane({ kubernetesVersion: version });
  let cp: ControlPlane;
  let core: CoreV1Api;
  let cloud: FakeCloud;
  let ccm: CloudControllerManager;
  let logs: CapturedLogs;

  beforeAll(async () => {
    cp = controlPlane();
    core = cp.kubeConfig.makeApiClient(CoreV1Api);
    cloud = new FakeCloud({ enableInstancesV2: true });
    cloud.setInstance('skew-a', { providerID: 'fake://skew-a', zone: 'zone-1', region: 'region-1' });
    cloud.setInstance('skew-b', { providerID: 'fake://skew-b', zone: 'zone-1', region: 'region-1' });
    logs = captureLogs();
    ccm = await startCloudControllerManager({
      argv: [
        '--cloud-provider=fake',
        '--secure-port=0',
        '--leader-elect-lease-duration=4s',
        '--leader-elect-renew-deadline=3s',
        '--leader-elect-retry-period=500ms',
        '--allocate-node-cidrs',
        '--configure-cloud-routes',
        '--cluster-cidr=10.244.0.0/16',
        '--route-reconciliation-period=2s',
        '--node-monitor-period=1s',
      ],
      cloud,
      kubeConfig: cp.kubeConfig,
    });
  }, 120_000);

  afterAll(async () => {
    await ccm?.stop();
    logs?.restore();
  });

  it('the API server is the version asked for', async () => {
    const info = await cp.kubeConfig.makeApiClient(VersionApi).getCode();
    expect(`${info.major}.${info.minor.replace(/\D+$/, '')}`).toBe(version.split('.').slice(0, 2).join('.'));
  });

  it('leader election: the manager holds the Lease', async () => {
    const coord = cp.kubeConfig.makeApiClient(CoordinationV1Api);
    const holder = await eventuallyValue(async () => {
      const lease = await coord.readNamespacedLease({ name: 'cloud-controller-manager', namespace: 'kube-system' });
      return lease.spec?.holderIdentity || undefined;
    }, 'a Lease holder');
    expect(holder).toMatch(/_/);
    expect(ccm.isLeader()).toBe(true);
  });

  it('node initialization, and the route for its podCIDR', async () => {
    await core.createNode({
      body: { metadata: { name: 'skew-a' }, spec: { taints: [UNINITIALIZED], podCIDR: '10.244.1.0/24' } },
    });
    const node = await eventuallyValue(async () => {
      const n = await core.readNode({ name: 'skew-a' });
      return n.spec?.providerID === 'fake://skew-a' && !n.spec.taints?.some((t) => t.key === UNINITIALIZED.key)
        ? n
        : undefined;
    }, 'skew-a initialized');
    expect(node.metadata?.labels?.['topology.kubernetes.io/zone']).toBe('zone-1');
    const routes = await eventuallyValue(async () => {
      const list = await cloud.routes()!.listRoutes('kubernetes');
      return list.some((r) => r.destinationCIDR === '10.244.1.0/24') ? list : undefined;
    }, 'the route of skew-a');
    expect(routes.find((r) => r.destinationCIDR === '10.244.1.0/24')?.targetNode).toBe('skew-a');
  });

  it('a LoadBalancer Service gets its ingress and the cleanup finalizer', async () => {
    await core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: 'skew-lb' },
        spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }], selector: { app: 'x' } },
      },
    });
    const svc = await eventuallyValue(async () => {
      const s = await core.readNamespacedService({ name: 'skew-lb', namespace: 'default' });
      return s.status?.loadBalancer?.ingress?.length ? s : undefined;
    }, 'skew-lb ingress');
    expect(svc.metadata?.finalizers).toContain('service.kubernetes.io/load-balancer-cleanup');
  });

  it('node lifecycle: a NotReady Node whose machine is gone is deleted', async () => {
    await core.createNode({ body: { metadata: { name: 'skew-b' }, spec: { taints: [UNINITIALIZED] } } });
    await eventuallyValue(
      async () => (await core.readNode({ name: 'skew-b' })).spec?.providerID === 'fake://skew-b',
      'skew-b initialized',
    );
    const n = await core.readNode({ name: 'skew-b' });
    const now = new Date();
    await core.replaceNodeStatus({
      name: 'skew-b',
      body: {
        ...n,
        status: {
          ...n.status,
          conditions: [
            {
              type: 'Ready',
              status: 'Unknown',
              reason: 'NodeStatusUnknown',
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ],
        },
      },
    });
    cloud.deleteInstance('skew-b');
    await eventuallyValue(
      async () =>
        core.readNode({ name: 'skew-b' }).then(
          () => undefined,
          () => true,
        ),
      { what: 'skew-b deleted', timeoutMs: 30_000 },
    );
  });

  it('informers synced by WatchList streaming or by the LIST + WATCH fallback', () => {
    const fellBack = logs.lines.some((l) => l.includes('falling back to the standard LIST/WATCH semantics'));
    console.log(
      `[skew] Kubernetes ${version}: initial sync by ${fellBack ? 'LIST + WATCH (fallback)' : 'WatchList streaming'}`,
    );
    expect(logs.lines.some((l) => l.includes('"Caches are synced"'))).toBe(true);
  });
});

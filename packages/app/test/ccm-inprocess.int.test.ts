/**
 * startCloudControllerManager in-process with a FakeCloud: /readyz fails until the informer caches have
 * synced (here: while the API server is down), and a vendor controller is started alongside the built-ins.
 */
import type { ControllerDescriptor } from '@ccm-kit/controllers';
import { type ControlPlane, FakeCloud } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { request as httpsRequest } from 'node:https';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { beforeAll, expect, it } from 'vitest';
import { startCloudControllerManager } from '../src/index.js';
import { freePort, httpsGet } from './ccm-harness.js';

const controlPlane = useControlPlane();
let cp: ControlPlane;
beforeAll(() => {
  cp = controlPlane();
});
/** The flags every test starts the manager with: the fake cloud, one replica, no routes. */
const FAKE_CCM = ['--cloud-provider=fake', '--leader-elect=false', '--configure-cloud-routes=false'];

it('/readyz fails until the caches have synced, then passes; vendor controllers start with the built-ins', async () => {
  const port = await freePort();
  let vendorStarted = false;
  const vendor: ControllerDescriptor = {
    name: 'vendor-extra-controller',
    clientName: 'vendor-extra',
    async init(ctx) {
      vendorStarted = true;
      ctx.informers.nodes(); // shares the node informer
      return {
        started: true,
        done: new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r())),
      };
    },
  };
  await cp.stopApiServer();
  const ccm = await startCloudControllerManager({
    argv: [
      ...FAKE_CCM,
      `--secure-port=${port}`,
      '--authentication-skip-lookup', // the API server is down at start: no client-CA lookup
      '--bind-address=127.0.0.1',
    ],
    cloud: new FakeCloud({ enableInstancesV2: true }),
    kubeConfig: cp.kubeConfig,
    controllers: [vendor],
  });
  try {
    await eventuallyValue(async () => (await httpsGet(port, '/livez')).status === 200, 'the secure port');
    const notReady = await httpsGet(port, '/readyz?verbose');
    expect(notReady.status).toBe(500);
    expect(notReady.body).toContain('[-]controllers-synced failed');
    await cp.startApiServer();
    await eventuallyValue(async () => (await httpsGet(port, '/readyz')).status === 200, {
      what: '/readyz to pass',
      timeoutMs: 60_000,
    });
    expect(vendorStarted).toBe(true);
    const healthz = await httpsGet(port, '/healthz?verbose');
    expect(healthz.body).toContain('[+]vendor-extra-controller ok');
    expect(healthz.body).not.toContain('leaderElection');
  } finally {
    await ccm.stop();
  }
  await ccm.done;
}, 120_000);

it('controllerOptions.nodeOwnership: Nodes of another provider are left alone', async () => {
  const cloud = new FakeCloud({ enableInstancesV2: true });
  cloud.setInstance('ours-1', { providerID: 'fake://ours-1', zone: 'z1' });
  cloud.setInstance('theirs-1', { providerID: 'other://theirs-1', zone: 'z1' });
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const taint = {
    key: 'node.cloudprovider.kubernetes.io/uninitialized',
    value: 'true',
    effect: 'NoSchedule',
  };
  await core.createNode({ body: { metadata: { name: 'ours-1' }, spec: { taints: [taint] } } });
  await core.createNode({
    body: { metadata: { name: 'theirs-1' }, spec: { providerID: 'other://theirs-1', taints: [taint] } },
  });
  const ccm = await startCloudControllerManager({
    argv: [...FAKE_CCM, '--secure-port=0'],
    cloud,
    kubeConfig: cp.kubeConfig,
    controllerOptions: { nodeOwnership: (n: V1Node) => !n.spec?.providerID?.startsWith('other://') },
  });
  try {
    await eventuallyValue(async () => {
      const n = await core.readNode({ name: 'ours-1' });
      return n.spec?.providerID === 'fake://ours-1' && !n.spec?.taints?.some((t) => t.key === taint.key);
    }, 'ours-1 to be initialized');
    // A full pass has run for every Node; the foreign one still carries the taint and no zone label.
    const theirs = await core.readNode({ name: 'theirs-1' });
    expect(theirs.spec?.taints?.map((t) => t.key)).toContain(taint.key);
    expect(theirs.metadata?.labels?.['topology.kubernetes.io/zone']).toBeUndefined();
    expect(cloud.calls.filter((c) => c.includes('instance-metadata'))).toHaveLength(1);
  } finally {
    await ccm.stop();
  }
}, 120_000);

it('serves a vendor admission webhook only with the gate, --webhooks and a port', async () => {
  const port = await freePort();
  const webhooks = {
    'deny-untagged': {
      path: '/validate',
      admissionHandler: (req: { object?: unknown }) => {
        const labels = (req.object as { metadata?: { labels?: Record<string, string> } })?.metadata?.labels ?? {};
        return labels.team
          ? { allowed: true }
          : { allowed: false, status: { code: 403, message: 'every Service needs a team label' } };
      },
    },
  };
  const base = [...FAKE_CCM, '--secure-port=0'];
  const start = (extra: string[]) =>
    startCloudControllerManager({
      argv: [...base, ...extra],
      cloud: new FakeCloud({ enableInstancesV2: true }),
      kubeConfig: cp.kubeConfig,
      webhooks,
    });
  // Without the gate nothing is served, even when listed.
  const off = await start(['--webhooks=*', `--webhook-secure-port=${port}`]);
  expect(off.webhookPort).toBeUndefined();
  await off.stop();
  // An unknown webhook name is a configuration error naming it.
  await expect(start(['--webhooks=nope'])).rejects.toThrow('"nope" is not in the list of known webhooks');

  const on = await start([
    '--feature-gates=CloudControllerManagerWebhook=true',
    '--webhooks=*',
    `--webhook-secure-port=${port}`,
    '--webhook-bind-address=127.0.0.1',
  ]);
  try {
    expect(on.webhookPort).toBe(port);
    const post = (body: string, contentType = 'application/json') =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/validate',
            method: 'POST',
            rejectUnauthorized: false,
            headers: { 'Content-Type': contentType },
          },
          (res) => {
            let b = '';
            res.on('data', (d) => {
              b += d;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const denied = await post(
      JSON.stringify({ kind: 'AdmissionReview', request: { uid: 'r1', object: { metadata: { labels: {} } } } }),
    );
    expect(denied.status).toBe(200);
    expect(JSON.parse(denied.body).response).toEqual({
      uid: 'r1',
      allowed: false,
      status: { code: 403, message: 'every Service needs a team label' },
    });
    const allowed = await post(
      JSON.stringify({
        kind: 'AdmissionReview',
        request: { uid: 'r2', object: { metadata: { labels: { team: 'a' } } } },
      }),
    );
    expect(JSON.parse(allowed.body).response).toEqual({ uid: 'r2', allowed: true });
    expect((await post('{}', 'text/plain')).status).toBe(400);
  } finally {
    await on.stop();
  }
}, 120_000);

it('--use-service-account-credentials: cloud-node initializes a Node as kube-system/node-controller; managedFields name cloud-controller-manager', async () => {
  const cloud = new FakeCloud({ enableInstancesV2: true });
  cloud.setInstance('sa-node-1', { providerID: 'fake://sa-node-1', zone: 'z1' });
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNode({
    body: {
      metadata: { name: 'sa-node-1' },
      spec: {
        taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }],
      },
    },
  });
  const ccm = await startCloudControllerManager({
    argv: [...FAKE_CCM, '--secure-port=0', '--controllers=cloud-node-controller', '--use-service-account-credentials'],
    cloud,
    kubeConfig: cp.kubeConfig,
  });
  try {
    const node = await eventuallyValue(async () => {
      const n = await core.readNode({ name: 'sa-node-1' });
      const uninitialized = n.spec?.taints?.some((t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized');
      return n.spec?.providerID === 'fake://sa-node-1' && !uninitialized ? n : undefined;
    }, 'sa-node-1 to be initialized');
    // The service account was created on demand and its token used (the bootstrap RBAC role
    // system:controller:node-controller grants what cloud-node needs).
    const sa = await core.readNamespacedServiceAccount({ name: 'node-controller', namespace: 'kube-system' });
    expect(sa.metadata?.name).toBe('node-controller');
    const managers = new Set((node.metadata?.managedFields ?? []).map((m) => m.manager));
    expect(managers).toContain('cloud-controller-manager');
    expect([...managers].some((m) => m?.includes('ccm-kit;'))).toBe(false);
  } finally {
    await ccm.stop();
  }
}, 120_000);

it('a provider with listInstanceStates: the status pass and the lifecycle monitor read pages through the fenced provider, not one call per Node', async () => {
  const cloud = new FakeCloud({ enableInstancesV2: true, instanceStatePageSize: 2 });
  cloud.setInstance('fake://batch-up', { addresses: [{ type: 'InternalIP', address: '10.5.0.1' }] });
  cloud.setInstance('fake://batch-down', { shutdown: true });
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNode({ body: { metadata: { name: 'batch-up' }, spec: { providerID: 'fake://batch-up' } } });
  await core.createNode({ body: { metadata: { name: 'batch-down' }, spec: { providerID: 'fake://batch-down' } } });
  const ccm = await startCloudControllerManager({
    argv: [
      ...FAKE_CCM,
      '--secure-port=0',
      '--controllers=cloud-node-controller,cloud-node-lifecycle-controller',
      '--node-status-update-frequency=1s',
      '--node-monitor-period=1s',
    ],
    cloud,
    kubeConfig: cp.kubeConfig,
    controllerOptions: { nodeOwnership: (n: V1Node) => n.metadata?.name?.startsWith('batch-') ?? false },
  });
  try {
    await eventuallyValue(async () => {
      const n = await core.readNode({ name: 'batch-up' });
      return n.status?.addresses?.some((a) => a.address === '10.5.0.1');
    }, 'addresses from the listing');
    await eventuallyValue(async () => {
      const n = await core.readNode({ name: 'batch-down' });
      return n.spec?.taints?.some((t) => t.key === 'node.cloudprovider.kubernetes.io/shutdown');
    }, 'the shutdown taint from the listing');
    expect(cloud.calls).toContain('list-instance-states');
    expect(cloud.calls.filter((c) => c !== 'list-instance-states')).toEqual([]);
  } finally {
    await ccm.stop();
  }
}, 120_000);

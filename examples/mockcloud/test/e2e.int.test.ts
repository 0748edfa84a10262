/**
 * The whole stack: a real kube-apiserver, the mock cloud API, and ccm-kit's cloud-controller-manager
 * running the mockcloud provider with the tagger enabled (`--controllers=*,mockcloud-tagger-controller`).
 */
import { startCloudControllerManager } from '@ccm-kit/app';
import { TAINT_EXTERNAL_CLOUD_PROVIDER } from '@ccm-kit/cloud-provider';
import { type ControlPlane, isGone } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import {
  ANNOTATION_LOAD_BALANCER_ID,
  LABEL_NODE_NAME,
  MockCloudProvider,
  parseConfig,
  taggerController,
} from '../src/index.js';
import { recordingLogger, startApi, TOKEN } from './helpers.js';

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
  const cloud = new MockCloudProvider(config, { logger: recordingLogger() });
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
      const done =
        !!n.spec?.providerID && !n.spec.taints?.some((t) => t.key === TAINT_EXTERNAL_CLOUD_PROVIDER);
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
    expect(
      api.requests().some((r) => r.time > revokedAt && r.status === 401 && r.path.startsWith('/v1/servers')),
    ).toBe(true);
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

/**
 * service-lb-gc-controller with the mockcloud provider, started by the app from its flags, against a real
 * kube-apiserver and the mock cloud API. A manager with service-lb-controller makes two load balancers and is
 * stopped (the CCM down); one Service loses its finalizer and is deleted. A manager with the collector in dry run
 * records the Event and deletes nothing; one with `--lb-gc-mode=delete` and a short grace period deletes that
 * load balancer in the cloud and leaves the other.
 */
import { startCloudControllerManager } from '@ccm-kit/app';
import { LOAD_BALANCER_CLEANUP_FINALIZER } from '@ccm-kit/cloud-provider';
import { patchOptions } from '@ccm-kit/runtime/client';
import { isGone, RecordingLogger } from '@ccm-kit/testing';
import { eventually, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api, type V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import { ANNOTATION_LOAD_BALANCER_ID, MockCloudProvider, parseConfig } from '../src/index.js';
import { startApi, TOKEN } from './helpers.js';

const controlPlane = useControlPlane();
let api: MockCloudApiServer;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

function startManager(...argv: string[]) {
  const config = parseConfig(
    [
      `apiURL: ${api.url}`,
      `token: ${TOKEN}`,
      'clusterID: gc',
      'retry: { retries: 3, minDelayMs: 10, maxDelayMs: 50 }',
      'loadBalancer: { provisioningRetryMs: 200 }',
    ].join('\n'),
    {},
  );
  return startCloudControllerManager({
    argv: [
      '--cloud-provider=mockcloud',
      '--leader-elect=false',
      '--configure-cloud-routes=false',
      '--secure-port=0',
      ...argv,
    ],
    cloud: new MockCloudProvider(config, { logger: new RecordingLogger() }),
    kubeConfig: controlPlane().kubeConfig,
  });
}

it('reports in dry run, then deletes in delete mode, the load balancer of a Service deleted without its finalizer while the CCM was down', async () => {
  const core = controlPlane().kubeConfig.makeApiClient(CoreV1Api);
  const namespace = 'default';
  const lbManager = await startManager('--controllers=service-lb-controller');
  let ids: Record<string, string>;
  let orphan: V1Service;
  try {
    for (const name of ['orphan', 'alive']) {
      await core.createNamespacedService({
        namespace,
        body: {
          metadata: { name },
          spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ port: 80, protocol: 'TCP' }] },
        },
      });
    }
    ids = await eventually(
      async () => {
        const out: Record<string, string> = {};
        for (const name of ['orphan', 'alive']) {
          const s = await core.readNamespacedService({ namespace, name });
          expect(s.status?.loadBalancer?.ingress?.[0]?.ip).toBeDefined();
          expect(s.metadata?.finalizers).toContain(LOAD_BALANCER_CLEANUP_FINALIZER);
          out[name] = s.metadata!.annotations![ANNOTATION_LOAD_BALANCER_ID]!;
          if (name === 'orphan') orphan = s;
        }
        return out;
      },
      { timeoutMs: 30_000 },
    );
  } finally {
    await lbManager.stop();
  }
  await core.patchNamespacedService(
    { namespace, name: 'orphan', body: { metadata: { finalizers: null } } },
    patchOptions('merge'),
  );
  await core.deleteNamespacedService({ namespace, name: 'orphan' });
  await eventually(async () =>
    expect(await isGone(core.readNamespacedService({ namespace, name: 'orphan' }))).toBe(true),
  );
  const orphanEvents = async (reason: string) =>
    (await core.listNamespacedEvent({ namespace })).items.filter(
      (e) => e.reason === reason && e.involvedObject.uid === orphan.metadata?.uid,
    );

  const dry = await startManager(
    '--controllers=service-lb-gc-controller',
    '--lb-gc-grace-period=500ms',
    '--lb-gc-period=250ms',
  );
  try {
    await eventually(async () => expect(await orphanEvents('OrphanedLoadBalancer')).toHaveLength(1), {
      timeoutMs: 20_000,
    });
  } finally {
    await dry.stop();
  }
  expect(api.state.getLoadBalancer(ids.orphan!)).toBeDefined();
  expect(api.requests().filter((r) => r.method === 'DELETE')).toEqual([]);

  const gc = await startManager(
    '--controllers=service-lb-gc-controller',
    '--lb-gc-mode=delete',
    '--lb-gc-grace-period=1s',
    '--lb-gc-period=250ms',
  );
  try {
    await eventually(() => expect(api.state.getLoadBalancer(ids.orphan!)).toBeUndefined(), { timeoutMs: 20_000 });
    expect(api.state.getLoadBalancer(ids.alive!)).toBeDefined();
    await eventually(async () => expect(await orphanEvents('DeletedOrphanedLoadBalancer')).toHaveLength(1));
    expect(
      api
        .requests()
        .filter((r) => r.method === 'DELETE')
        .map((r) => r.path),
    ).toEqual([`/v1/load_balancers/${ids.orphan}`]);
  } finally {
    await gc.stop();
  }
}, 120_000);

it('refuses to start with an unknown --lb-gc-mode, naming the flag', async () => {
  await expect(startManager('--controllers=service-lb-gc-controller', '--lb-gc-mode=purge')).rejects.toThrow(
    '--lb-gc-mode must be one of dry-run, delete, got "purge"',
  );
});

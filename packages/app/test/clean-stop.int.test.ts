/**
 * A clean stop of a leader (SIGTERM, `stop()`) against a real kube-apiserver while a cloud call is in flight: the
 * manager logs its shutdown and releases the lease; it logs no deposition (the fence refusing the leader's work,
 * fence refusals, Warning Events about aborted work), which is what a lost lease logs
 * (docs/decisions/0052-fenced-leader-exits.md).
 */
import { leaseFenceSignal } from '@ccm-kit/runtime/leader-election';
import { FakeCloud } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane, useLogCapture } from '@ccm-kit/testing/vitest';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { startCloudControllerManager } from '../src/index.js';

const controlPlane = useControlPlane();
const lines = useLogCapture();

it('a clean stop while a cloud call is in flight logs the shutdown and the release, not a deposition', async () => {
  const cp = controlPlane();
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'clean-stop' } } });
  await core.createNode({ body: { metadata: { name: 'clean-stop-node' } } });
  const cloud = new FakeCloud({ enableInstancesV2: true, externalIP: '192.0.2.10' });
  cloud.setInstance('clean-stop-node', { providerID: 'fake://clean-stop-node', zone: 'z1' });
  // A provider call in flight when the stop comes, that goes on after it (it does not heed the signal) and checks
  // the fence before its next request, as a provider's HTTP client does (CloudCallGuard, leaseFenceSignal).
  let inFlight = false;
  let finish!: () => void;
  const gate = new Promise<void>((r) => (finish = r));
  const balancer = cloud.loadBalancer()!;
  const ensure = balancer.ensureLoadBalancer.bind(balancer);
  cloud.loadBalancer = () =>
    Object.assign(Object.create(balancer) as typeof balancer, {
      ensureLoadBalancer: async (...args: Parameters<typeof ensure>) => {
        inFlight = true;
        await gate;
        leaseFenceSignal('cloud request POST /load-balancers');
        return ensure(...args);
      },
    });
  const ccm = await startCloudControllerManager({
    argv: [
      '--cloud-provider=fake',
      '--secure-port=0',
      '--configure-cloud-routes=false',
      '--leader-elect-resource-name=clean-stop',
      '--leader-elect-lease-duration=4s',
      '--leader-elect-renew-deadline=3s',
      '--leader-elect-retry-period=500ms',
    ],
    cloud,
    kubeConfig: cp.kubeConfig,
  });
  let stopped = false;
  try {
    await eventuallyValue(() => ccm.isLeader(), 'the manager to lead');
    await core.createNamespacedService({
      namespace: 'clean-stop',
      body: {
        metadata: { name: 'web' },
        spec: { type: 'LoadBalancer', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
      },
    });
    await eventuallyValue(() => inFlight, 'ensureLoadBalancer to be in flight');
    setTimeout(finish, 300); // the stop waits for the work (up to the renew deadline) before the release
    await ccm.stop();
    stopped = true;
    await ccm.done;
  } finally {
    if (!stopped) await ccm.stop();
  }
  const log = lines.join('\n');
  expect(log).toContain('Stopping cloud-controller-manager');
  expect(log).toContain('released lease');
  expect(log).toContain('Stopped cloud-controller-manager');
  expect(lines.filter((l) => /fence refused|has not renewed lease|leaderelection lost/.test(l))).toEqual([]);
  expect(lines.filter((l) => l.includes('Event occurred') && l.includes('type="Warning"'))).toEqual([]);
  const lease = await cp.kubeConfig
    .makeApiClient(CoordinationV1Api)
    .readNamespacedLease({ namespace: 'kube-system', name: 'clean-stop' });
  expect(lease.spec?.holderIdentity ?? '').toBe('');
}, 120_000);

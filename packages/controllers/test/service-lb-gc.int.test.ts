/**
 * service-lb-gc-controller against a real kube-apiserver and FakeCloud. service-lb-controller makes the balancers;
 * it is stopped (the CCM down), a Service loses its finalizer and is deleted, then the collector starts through its
 * descriptor with a short grace period: in delete mode it deletes that balancer and only that one; in dry-run
 * mode it records the Event and deletes nothing.
 */
import { LOAD_BALANCER_CLEANUP_FINALIZER } from '@ccm-kit/cloud-provider';
import { isNotFound, patchOptions } from '@ccm-kit/runtime/client';
import { FakeCloud } from '@ccm-kit/testing';
import { eventually, startControllerUnderTest, useTestCluster } from '@ccm-kit/testing/vitest';
import type { CoreV1Event, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { LoadBalancerGCConfig } from '../src/contract/load-balancer-gc-config.js';
import { serviceLbGcController } from '../src/service-lb-gc/descriptor.js';
import { serviceLbController } from '../src/service/descriptor.js';

const CLUSTER = 'gc-int';
const cluster = useTestCluster();

async function createLBService(namespace: string, name: string): Promise<V1Service> {
  return cluster().core.createNamespacedService({
    namespace,
    body: {
      metadata: { name },
      spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }] },
    },
  });
}

/** Runs service-lb-controller until both Services have a balancer and the finalizer, then stops it. */
async function serveThenStop(cloud: FakeCloud, namespace: string, names: string[]): Promise<V1Service[]> {
  const ccm = await startControllerUnderTest({
    cluster: cluster(),
    cloud,
    controller: serviceLbController,
    config: { clusterName: CLUSTER },
  });
  try {
    for (const n of names) await createLBService(namespace, n);
    return await eventually(async () => {
      const out: V1Service[] = [];
      for (const n of names) {
        const s = await cluster().core.readNamespacedService({ namespace, name: n });
        expect(s.metadata?.finalizers).toContain(LOAD_BALANCER_CLEANUP_FINALIZER);
        expect(s.status?.loadBalancer?.ingress?.[0]?.ip).toBe('10.9.8.7');
        out.push(s);
      }
      return out;
    });
  } finally {
    await ccm.stop();
  }
}

/** Deletes the Service without its cleanup finalizer (as `kubectl patch … finalizers: null` with no CCM running). */
async function forceDelete(namespace: string, name: string): Promise<void> {
  const core = cluster().core;
  await core.patchNamespacedService(
    { namespace, name, body: { metadata: { finalizers: null } } },
    patchOptions('merge'),
  );
  await core.deleteNamespacedService({ namespace, name });
  await eventually(async () => {
    const gone = await core.readNamespacedService({ namespace, name }).then(
      () => false,
      (err: unknown) => isNotFound(err),
    );
    expect(gone).toBe(true);
  });
}

async function events(namespace: string, reason: string): Promise<CoreV1Event[]> {
  return (await cluster().core.listNamespacedEvent({ namespace })).items.filter((e) => e.reason === reason);
}

const startCollector = (cloud: FakeCloud, loadBalancerGC: LoadBalancerGCConfig) =>
  startControllerUnderTest({
    cluster: cluster(),
    cloud,
    controller: serviceLbGcController,
    config: { clusterName: CLUSTER, loadBalancerGC },
  });

describe('service-lb-gc-controller with a real API server and FakeCloud', () => {
  it('delete mode: deletes the balancer of a Service deleted without its finalizer while the CCM was down, after the grace period', async () => {
    const cloud = new FakeCloud({ externalIP: '10.9.8.7' });
    const namespace = await cluster().createNamespace('gc-del');
    const [orphan, alive] = await serveThenStop(cloud, namespace, ['orphan', 'alive']);
    const orphanLB = cloud.getLoadBalancerName(CLUSTER, orphan!);
    const aliveLB = cloud.getLoadBalancerName(CLUSTER, alive!);
    await forceDelete(namespace, 'orphan');
    expect(cloud.balancers.has(orphanLB)).toBe(true);

    const started = Date.now();
    const gc = await startCollector(cloud, { mode: 'delete', gracePeriodMs: 1500, periodMs: 250 });
    try {
      expect(gc.result.started).toBe(true);
      await eventually(() => expect(cloud.balancers.has(orphanLB)).toBe(false), { timeoutMs: 20_000 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
      expect(cloud.balancers.has(aliveLB)).toBe(true);
      const deleted = await eventually(async () => {
        const list = await events(namespace, 'DeletedOrphanedLoadBalancer');
        expect(list).toHaveLength(1);
        return list[0]!;
      });
      expect(deleted.involvedObject).toMatchObject({ kind: 'Service', name: 'orphan', uid: orphan!.metadata!.uid });
      expect(deleted.type).toBe('Normal');
      expect(deleted.source?.component ?? deleted.reportingComponent).toBe('service-lb-gc-controller');
      // More passes change nothing: the Service that exists keeps its balancer.
      const calls = cloud.callCount('listLoadBalancers');
      await eventually(() => expect(cloud.callCount('listLoadBalancers')).toBeGreaterThan(calls + 2));
      expect(cloud.callCount('ensureLoadBalancerDeleted')).toBe(1);
      expect(cloud.balancers.has(aliveLB)).toBe(true);
    } finally {
      await gc.stop();
    }
  });

  it('dry run: records one Warning Event on the deleted Service and keeps the balancer', async () => {
    const cloud = new FakeCloud({ externalIP: '10.9.8.7' });
    const namespace = await cluster().createNamespace('gc-dry');
    const [orphan] = await serveThenStop(cloud, namespace, ['orphan']);
    const orphanLB = cloud.getLoadBalancerName(CLUSTER, orphan!);
    await forceDelete(namespace, 'orphan');

    const gc = await startCollector(cloud, { mode: 'dry-run', gracePeriodMs: 500, periodMs: 250 });
    try {
      const warned = await eventually(async () => {
        const list = await events(namespace, 'OrphanedLoadBalancer');
        expect(list).toHaveLength(1);
        return list[0]!;
      });
      expect(warned.type).toBe('Warning');
      expect(warned.involvedObject).toMatchObject({ kind: 'Service', name: 'orphan', uid: orphan!.metadata!.uid });
      expect(warned.message).toMatch(/--lb-gc-mode=delete would delete it$/);
      const calls = cloud.callCount('listLoadBalancers');
      await eventually(() => expect(cloud.callCount('listLoadBalancers')).toBeGreaterThan(calls + 3));
      expect(cloud.balancers.has(orphanLB)).toBe(true);
      expect(cloud.callCount('ensureLoadBalancerDeleted')).toBe(0);
      expect(await events(namespace, 'OrphanedLoadBalancer')).toHaveLength(1);
    } finally {
      await gc.stop();
    }
  });
});

/**
 * service-lb-controller with load-balancer groups (docs/decisions/0207) against a real kube-apiserver and FakeCloud:
 * the provider groups Services by namespace; every load-balancer call takes 150 ms, long enough that syncs at
 * `--concurrent-service-syncs=4` would overlap without groups. Overlaps are counted at the fake cloud.
 */
import { FakeCloud, kubeletNode, uniqueName as uniq } from '@ccm-kit/testing';
import { eventually, useControllerUnderTest } from '@ccm-kit/testing/vitest';
import type { CoreV1Api, V1Service } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { serviceLbController } from '../src/service/descriptor.js';

const LATENCY_MS = 150;
const cloud = new FakeCloud({
  externalIP: '10.9.8.7',
  exists: true,
  loadBalancerGroup: (_cluster, svc) => svc.metadata?.namespace,
});
cloud.faults.setLatency(
  ['getLoadBalancer', 'ensureLoadBalancer', 'updateLoadBalancer', 'ensureLoadBalancerDeleted'],
  LATENCY_MS,
);
const cut = useControllerUnderTest(() => ({
  cloud,
  controller: serviceLbController,
  config: { clusterName: 'int-cluster', concurrentServiceSyncs: 4 },
}));
let core: CoreV1Api;

beforeAll(() => {
  core = cut().cluster.core;
});

async function createNode(name: string): Promise<void> {
  cut().cluster.deleteNodeLater(name);
  await core.createNode({ body: kubeletNode(name, { taints: [], providerID: `fake://${name}` }) });
}

const createLBService = (namespace: string, name: string): Promise<V1Service> =>
  core.createNamespacedService({
    namespace,
    body: {
      metadata: { name },
      spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] },
    },
  });

const ingressOf = async (namespace: string, name: string) =>
  (await core.readNamespacedService({ namespace, name })).status?.loadBalancer?.ingress?.[0]?.ip;

/** Whether two ensure calls about Services of different namespaces were in flight at the same time. */
function groupsRanTogether(a: string, b: string): boolean {
  const calls = cloud.callLog.entries('ensureLoadBalancer').filter((e) => e.endMs !== undefined);
  const of = (ns: string) => calls.filter((e) => e.subject.startsWith(`${ns}/`));
  return of(a).some((x) => of(b).some((y) => x.startMs < y.endMs! && y.startMs < x.endMs!));
}

describe('service-lb-controller with load-balancer groups', () => {
  it('never calls the cloud for two Services of one group at once, runs groups in parallel, and reports no waiting', async () => {
    await createNode(uniq('node'));
    const team = await cut().cluster.createNamespace('team');
    const other = await cut().cluster.createNamespace('other');
    const names = ['a', 'b', 'c', 'd'];
    await Promise.all([
      ...names.map((n) => createLBService(team, n)),
      createLBService(other, 'x'),
      createLBService(other, 'y'),
    ]);
    await eventually(
      async () => {
        for (const n of names) expect(await ingressOf(team, n)).toBe('10.9.8.7');
        for (const n of ['x', 'y']) expect(await ingressOf(other, n)).toBe('10.9.8.7');
      },
      { timeoutMs: 30_000 },
    );
    expect(cloud.groupOverlaps).toBe(0);
    // The other group was not held back: without groups the same latency makes these calls overlap too.
    expect(groupsRanTogether(team, other)).toBe(true);
    // Waiting for the group is no failure: no Warning Event, no retry.
    const warnings = (await core.listNamespacedEvent({ namespace: team })).items.filter((e) => e.type === 'Warning');
    expect(warnings).toEqual([]);
  });

  it('host updates after a Node joins keep one call per group at a time', async () => {
    const ns = await cut().cluster.createNamespace('hosts');
    await createNode(uniq('node'));
    await Promise.all(['p', 'q', 'r'].map((n) => createLBService(ns, n)));
    await eventually(async () => {
      for (const n of ['p', 'q', 'r']) expect(await ingressOf(ns, n)).toBe('10.9.8.7');
    });
    const before = cloud.callCount('updateLoadBalancer');
    const joined = uniq('node');
    await createNode(joined);
    await eventually(() => {
      const updated = cloud.updateCalls.filter(
        (c) => c.service.metadata?.namespace === ns && c.hosts.some((h) => h.metadata?.name === joined),
      );
      expect(updated).toHaveLength(3);
    });
    expect(cloud.callCount('updateLoadBalancer')).toBeGreaterThan(before);
    expect(cloud.groupOverlaps).toBe(0);
  });

  it('deleting Services of one group never overlaps either', async () => {
    const ns = await cut().cluster.createNamespace('gone');
    await createNode(uniq('node'));
    await Promise.all(['s', 't'].map((n) => createLBService(ns, n)));
    await eventually(async () => {
      for (const n of ['s', 't']) expect(await ingressOf(ns, n)).toBe('10.9.8.7');
    });
    await Promise.all(['s', 't'].map((name) => core.deleteNamespacedService({ namespace: ns, name })));
    await eventually(async () => {
      expect((await core.listNamespacedService({ namespace: ns })).items).toEqual([]);
    });
    expect(
      cloud.callLog.entries('ensureLoadBalancerDeleted').filter((e) => e.subject.startsWith(`${ns}/`)),
    ).toHaveLength(2);
    expect(cloud.groupOverlaps).toBe(0);
  });
});

/**
 * service-lb-controller against a real kube-apiserver and FakeCloud: started through its descriptor by
 * `useControllerUnderTest`, as the app starts it. One control plane and one controller
 * for the file; each test uses its own namespace and Node names and removes its Nodes afterwards.
 */
import { LOAD_BALANCER_CLEANUP_FINALIZER, RetryError, serviceStatusClientFromCoreV1Api } from '@ccm-kit/cloud-provider';
import { isNotFound, patchOptions } from '@ccm-kit/runtime/client';
import { FakeCloud, kubeletNode, uniqueName as uniq } from '@ccm-kit/testing';
import { eventually, useControllerUnderTest } from '@ccm-kit/testing/vitest';
import type { CoreV1Api, CoreV1Event, V1Node, V1Service } from '@kubernetes/client-node';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ControllerStartResult } from '../src/contract/controller-context.js';
import { serviceLbController } from '../src/service/descriptor.js';
import { errorText } from '../src/service/error-text.js';

const cloud = new FakeCloud({
  externalIP: '10.1.2.3',
  exists: true,
  zone: { failureDomain: 'a', region: 'us-central' },
});
const cut = useControllerUnderTest(() => ({
  cloud,
  controller: serviceLbController,
  config: { clusterName: 'int-cluster' },
}));
let core: CoreV1Api;
let started: ControllerStartResult;

beforeAll(() => {
  core = cut().cluster.core;
  started = cut().result;
});

afterEach(() => {
  cloud.faults.clear();
});

const newNamespace = () => cut().cluster.createNamespace('svc');

async function createNode(name: string, labels: Record<string, string> = {}): Promise<V1Node> {
  cut().cluster.deleteNodeLater(name);
  return core.createNode({ body: kubeletNode(name, { taints: [], labels, providerID: `fake://${name}` }) });
}

async function createLBService(namespace: string, name: string): Promise<V1Service> {
  return core.createNamespacedService({
    namespace,
    body: {
      metadata: { name },
      spec: { type: 'LoadBalancer', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
    },
  });
}

const read = (namespace: string, name: string) => core.readNamespacedService({ namespace, name });

async function events(namespace: string, reason?: string): Promise<CoreV1Event[]> {
  const list = await core.listNamespacedEvent({ namespace });
  return list.items.filter((e) => reason === undefined || e.reason === reason);
}

/** Hosts of the update calls for one Service, oldest first. */
const updateHosts = (namespace: string, name: string) =>
  cloud.updateCalls
    .filter((c) => c.service.metadata?.namespace === namespace && c.service.metadata?.name === name)
    .map((c) => c.hosts.map((h) => h.metadata?.name ?? '').sort());

describe('service-lb-controller with a real API server', () => {
  it('starts through its descriptor', () => {
    expect(started.started).toBe(true);
    expect(serviceLbController.name).toBe('service-lb-controller');
    expect(serviceLbController.aliases).toEqual(['service']);
    expect(serviceLbController.clientName).toBe('service-controller');
  });

  it('a LoadBalancer Service gets its ingress IP and the finalizer', async () => {
    const ns = await newNamespace();
    await createNode(uniq('node'));
    await createLBService(ns, 'web');
    const svc = await eventually(async () => {
      const s = await read(ns, 'web');
      expect(s.status?.loadBalancer?.ingress?.[0]?.ip).toBe('10.1.2.3');
      return s;
    });
    expect(svc.metadata?.finalizers).toEqual([LOAD_BALANCER_CLEANUP_FINALIZER]);
    // Without --service-status-conditions no condition is written (upstream writes none).
    expect(svc.status?.conditions ?? []).toEqual([]);
    expect(svc.status?.loadBalancer?.ingress?.[0]?.ports).toEqual([{ port: 80, protocol: 'TCP' }]);
    // The spec is untouched by the status-subresource patches.
    expect(svc.spec?.type).toBe('LoadBalancer');
    const ensured = await eventually(async () => {
      const evs = await events(ns, 'EnsuredLoadBalancer');
      expect(evs.length).toBeGreaterThan(0);
      return evs[0]!;
    });
    expect(ensured.message).toBe('Ensured load balancer');
    expect(ensured.source?.component).toBe('service-controller');
    expect(ensured.involvedObject).toMatchObject({
      kind: 'Service',
      apiVersion: 'v1',
      name: 'web',
      namespace: ns,
    });
    expect((await events(ns, 'EnsuringLoadBalancer'))[0]?.message).toBe('Ensuring load balancer');
    const name = cloud.getLoadBalancerName('int-cluster', svc);
    expect(cloud.balancers.get(name)?.region).toBe('us-central');
  });

  it('its load balancer follows Nodes joining and leaving', async () => {
    const ns = await newNamespace();
    const first = uniq('node');
    await createNode(first);
    await createLBService(ns, 'follow');
    await eventually(async () => {
      expect((await read(ns, 'follow')).status?.loadBalancer?.ingress).toHaveLength(1);
    });
    const joined = uniq('node');
    await createNode(joined);
    await eventually(() => {
      expect(updateHosts(ns, 'follow').some((hosts) => hosts.includes(joined) && hosts.includes(first))).toBe(true);
    });
    await new Promise((r) => setTimeout(r, 300));
    // One UpdateLoadBalancer per change of the node set.
    expect(updateHosts(ns, 'follow').filter((hosts) => hosts.includes(joined))).toHaveLength(1);
    const callsBefore = updateHosts(ns, 'follow').length;
    // Readiness is not part of the node set (upstream quirk 1 in docs/upstream-quirks.md) ...
    await core.patchNodeStatus({
      name: joined,
      body: [{ op: 'add', path: '/status/conditions', value: [{ type: 'Ready', status: 'False', reason: 'x' }] }],
    });
    // ... but the exclusion label does.
    await core.patchNode(
      {
        name: first,
        body: { metadata: { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': 'true' } } },
      },
      patchOptions('merge'),
    );
    await eventually(() => {
      const hosts = updateHosts(ns, 'follow');
      expect(hosts.length).toBe(callsBefore + 1);
      expect(hosts.at(-1)).toContain(joined);
      expect(hosts.at(-1)).not.toContain(first);
    });
    await core.deleteNode({ name: joined });
    await eventually(() => {
      expect(updateHosts(ns, 'follow').at(-1)).not.toContain(joined);
    });
    const hosts = updateHosts(ns, 'follow');
    for (let i = 1; i < hosts.length; i++) expect(hosts[i]).not.toEqual(hosts[i - 1]);
    const updated = await eventually(async () => {
      const evs = await events(ns, 'UpdatedLoadBalancer');
      expect(evs.length).toBeGreaterThan(0);
      return evs[0]!;
    });
    expect(updated.message).toBe('Updated load balancer with new hosts');
  });

  it('a burst of Node events coalesces: at most one update per node-set change, ending with every node', async () => {
    const ns = await newNamespace();
    await createNode(uniq('node'));
    await createLBService(ns, 'burst');
    await eventually(async () => {
      expect((await read(ns, 'burst')).status?.loadBalancer?.ingress).toHaveLength(1);
    });
    const before = updateHosts(ns, 'burst').length;
    const burst = Array.from({ length: 10 }, () => uniq('burst'));
    await Promise.all(burst.map((n) => createNode(n)));
    await eventually(() => {
      const last = updateHosts(ns, 'burst').at(-1) ?? [];
      for (const n of burst) expect(last).toContain(n);
    });
    await new Promise((r) => setTimeout(r, 300));
    const calls = updateHosts(ns, 'burst').slice(before);
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.length).toBeLessThanOrEqual(burst.length);
    for (let i = 1; i < calls.length; i++) expect(calls[i]).not.toEqual(calls[i - 1]);
    console.info(
      `[figure] 10 Node creations in a burst gave ${calls.length} UpdateLoadBalancer call(s) for the Service`,
    );
  });

  it('after the Service is deleted the load balancer is gone and the Service is released', async () => {
    const ns = await newNamespace();
    await createNode(uniq('node'));
    const created = await createLBService(ns, 'doomed');
    const svc = await eventually(async () => {
      const s = await read(ns, 'doomed');
      expect(s.status?.loadBalancer?.ingress).toHaveLength(1);
      return s;
    });
    const lbName = cloud.getLoadBalancerName('int-cluster', svc);
    expect(cloud.balancers.has(lbName)).toBe(true);
    const deletesBefore = cloud.callLog.entries().filter((e) => e.method === 'ensureLoadBalancerDeleted').length;
    await core.deleteNamespacedService({ namespace: ns, name: 'doomed' });
    await eventually(async () => {
      const err = await read(ns, 'doomed').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isNotFound(err)).toBe(true);
    });
    const deletes = cloud.callLog
      .entries()
      .filter((e) => e.method === 'ensureLoadBalancerDeleted' && e.subject === `${ns}/doomed`);
    expect(deletes.length).toBeGreaterThan(0);
    expect(cloud.callLog.entries().filter((e) => e.method === 'ensureLoadBalancerDeleted').length).toBeGreaterThan(
      deletesBefore,
    );
    expect(cloud.balancers.has(lbName)).toBe(false);
    await eventually(async () => {
      const reasons = (await events(ns))
        .filter((e) => e.involvedObject?.uid === created.metadata?.uid)
        .map((e) => e.reason);
      expect(reasons).toEqual(expect.arrayContaining(['DeletingLoadBalancer', 'DeletedLoadBalancer']));
    });
  });

  it('a RetryError from ensure requeues after its delay', async () => {
    const ns = await newNamespace();
    await createNode(uniq('node'));
    cloud.faults.injectError('ensureLoadBalancer', {
      subject: `${ns}/slow`,
      times: 1,
      error: new RetryError('LB create in progress', 1_500),
    });
    await createLBService(ns, 'slow');
    await eventually(async () => {
      expect((await read(ns, 'slow')).status?.loadBalancer?.ingress?.[0]?.ip).toBe('10.1.2.3');
    });
    const attempts = cloud.callLog
      .entries('ensureLoadBalancer')
      .filter((e) => e.subject === `${ns}/slow`)
      .map((e) => e.startMs);
    expect(attempts).toHaveLength(2);
    const gap = attempts[1]! - attempts[0]!;
    // The fixed delay, not the 5 s first step of the exponential backoff.
    expect(gap).toBeGreaterThanOrEqual(1_400);
    expect(gap).toBeLessThan(4_500);
    const failed = await eventually(async () => {
      const evs = await events(ns, 'SyncLoadBalancerFailed');
      expect(evs.length).toBeGreaterThan(0);
      return evs[0]!;
    });
    expect(failed.type).toBe('Warning');
    expect(failed.message).toBe('Error syncing load balancer: failed to ensure load balancer: LB create in progress');
  });

  it('a cloud error never loses the finalizer', async () => {
    const ns = await newNamespace();
    await createNode(uniq('node'));
    const key = `${ns}/fragile`;
    let ensureFailures = 0;
    cloud.faults.injectError('ensureLoadBalancer', {
      subject: key,
      error: () => {
        ensureFailures++;
        return new Error('cloud is down');
      },
    });
    await createLBService(ns, 'fragile');
    // The finalizer is written before the (failing) cloud call, and stays.
    await eventually(async () => {
      expect(ensureFailures).toBeGreaterThan(0);
      const s = await read(ns, 'fragile');
      expect(s.metadata?.finalizers).toEqual([LOAD_BALANCER_CLEANUP_FINALIZER]);
      expect(s.status?.loadBalancer?.ingress ?? []).toEqual([]);
    });
    // Deleting while the cloud still fails: the Service stays (Terminating) with its finalizer.
    let getFailures = 0;
    cloud.faults.injectError('getLoadBalancer', {
      subject: key,
      error: () => {
        getFailures++;
        return new Error('cloud is still down');
      },
    });
    await core.deleteNamespacedService({ namespace: ns, name: 'fragile' });
    await eventually(() => expect(getFailures).toBeGreaterThan(0));
    const terminating = await read(ns, 'fragile');
    expect(terminating.metadata?.deletionTimestamp).toBeDefined();
    expect(terminating.metadata?.finalizers).toEqual([LOAD_BALANCER_CLEANUP_FINALIZER]);
    const failed = await eventually(async () => {
      const evs = (await events(ns, 'SyncLoadBalancerFailed')).filter((e) => e.message?.includes('still down'));
      expect(evs.length).toBeGreaterThan(0);
      return evs[0]!;
    });
    expect(failed.message).toBe(
      'Error syncing load balancer: failed to check if load balancer exists before cleanup: cloud is still down',
    );
    // Once the cloud recovers, the retry (per-key backoff) releases the Service.
    cloud.faults.clear();
    await eventually(async () => {
      const err = await read(ns, 'fragile').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isNotFound(err)).toBe(true);
    }, 40_000);
  }, 60_000);

  it("a real API error reads as Go's error text (the Status message) in messages and events", async () => {
    const ns = await newNamespace();
    const err = await serviceStatusClientFromCoreV1Api(core)
      .patchServiceStatus(ns, 'nope', { metadata: { finalizers: [LOAD_BALANCER_CLEANUP_FINALIZER] } })
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^HTTP-Code: 404/);
    expect(errorText(err)).toBe('services "nope" not found');
  });
});

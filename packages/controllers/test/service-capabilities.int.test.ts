/**
 * service-lb-controller against a real kube-apiserver with a FakeCloud that declares it does not enforce
 * `loadBalancerSourceRanges` (docs/service-capabilities.md, docs/decisions/0205): a Service asking for them gets
 * no load balancer, no finalizer and no status, one Warning Event `UnsupportedServiceField`, is not retried in a
 * loop, and is ensured once the ranges are removed; a Service whose load balancer exists keeps it as it was.
 */
import { LOAD_BALANCER_CLEANUP_FINALIZER } from '@ccm-kit/cloud-provider';
import { patchOptions } from '@ccm-kit/runtime/client';
import { FakeCloud, uniqueName as uniq } from '@ccm-kit/testing';
import { eventually, useControllerUnderTest } from '@ccm-kit/testing/vitest';
import type { CoreV1Api, CoreV1Event, V1Service } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { REASON_UNSUPPORTED_SERVICE_FIELD } from '../src/service/capability-check.js';
import { serviceLbController } from '../src/service/descriptor.js';

const cloud = new FakeCloud({
  provider: 'no-firewall',
  externalIP: '10.1.2.3',
  zone: { failureDomain: 'a', region: 'r' },
  capabilities: { loadBalancerSourceRanges: false, sessionAffinityClientIP: false },
});
const cut = useControllerUnderTest(() => ({
  cloud,
  controller: serviceLbController,
  config: { clusterName: 'int-cluster' },
}));
let core: CoreV1Api;

beforeAll(async () => {
  core = cut().cluster.core;
  const node = uniq('node');
  cut().cluster.deleteNodeLater(node);
  await core.createNode({ body: { metadata: { name: node }, spec: { providerID: `fake://${node}` } } });
});

function createService(namespace: string, name: string, spec: Partial<NonNullable<V1Service['spec']>> = {}) {
  return core.createNamespacedService({
    namespace,
    body: {
      metadata: { name },
      spec: { type: 'LoadBalancer', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }], ...spec },
    },
  });
}

const read = (namespace: string, name: string) => core.readNamespacedService({ namespace, name });

async function events(namespace: string, reason: string): Promise<CoreV1Event[]> {
  return (await core.listNamespacedEvent({ namespace })).items.filter((e) => e.reason === reason);
}

const ensureCallsFor = (namespace: string, name: string) =>
  cloud.ensureCalls.filter((c) => c.service.metadata?.namespace === namespace && c.service.metadata?.name === name);

const patchSpec = (namespace: string, name: string, spec: object) =>
  core.patchNamespacedService({ namespace, name, body: { spec } }, patchOptions('merge'));

describe('service-lb-controller refusing unsupported source ranges, with a real API server', () => {
  it('a Service with loadBalancerSourceRanges gets no load balancer and a Warning Event; removing them ensures it', async () => {
    const ns = await cut().cluster.createNamespace('caps');
    await createService(ns, 'ranged', { loadBalancerSourceRanges: ['10.0.0.0/8'] });
    const [warning] = await eventually(async () => {
      const evs = await events(ns, REASON_UNSUPPORTED_SERVICE_FIELD);
      expect(evs).toHaveLength(1);
      return evs;
    });
    expect(warning!.type).toBe('Warning');
    expect(warning!.source?.component).toBe('service-controller');
    expect(warning!.involvedObject).toMatchObject({ kind: 'Service', name: 'ranged', namespace: ns });
    expect(warning!.message).toBe(
      'Refusing to ensure a load balancer: provider "no-firewall" does not support spec.loadBalancerSourceRanges=10.0.0.0/8 (the load balancer would accept clients from every address). No load balancer is created or changed until the Service no longer asks for it',
    );
    // Not retried in a loop: after the backoff's first step (5 s) nothing more happened.
    await new Promise((r) => setTimeout(r, 6_000));
    const svc = await read(ns, 'ranged');
    expect(svc.metadata?.finalizers ?? []).toEqual([]);
    expect(svc.status?.loadBalancer?.ingress ?? []).toEqual([]);
    expect(ensureCallsFor(ns, 'ranged')).toEqual([]);
    const after = await events(ns, REASON_UNSUPPORTED_SERVICE_FIELD);
    expect(after).toHaveLength(1);
    expect(after[0]!.count ?? 1).toBe(1);
    expect(await events(ns, 'EnsuringLoadBalancer')).toEqual([]);

    // The change re-triggers the sync.
    await patchSpec(ns, 'ranged', { loadBalancerSourceRanges: null });
    const ensured = await eventually(async () => {
      const s = await read(ns, 'ranged');
      expect(s.status?.loadBalancer?.ingress?.[0]?.ip).toBe('10.1.2.3');
      return s;
    });
    expect(ensured.metadata?.finalizers).toEqual([LOAD_BALANCER_CLEANUP_FINALIZER]);
    expect(ensureCallsFor(ns, 'ranged')).toHaveLength(1);
  });

  it('ranges added to a Service with a load balancer leave that load balancer and status as they were', async () => {
    const ns = await cut().cluster.createNamespace('caps');
    await createService(ns, 'existing');
    await eventually(async () => {
      expect((await read(ns, 'existing')).status?.loadBalancer?.ingress?.[0]?.ip).toBe('10.1.2.3');
    });
    expect(ensureCallsFor(ns, 'existing')).toHaveLength(1);
    await patchSpec(ns, 'existing', {
      loadBalancerSourceRanges: ['192.168.0.0/16'],
      ports: [
        { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 },
        { name: 'admin', port: 9000, protocol: 'TCP', targetPort: 9000 },
      ],
    });
    await eventually(async () => {
      expect(await events(ns, REASON_UNSUPPORTED_SERVICE_FIELD)).toHaveLength(1);
    });
    expect(ensureCallsFor(ns, 'existing')).toHaveLength(1);
    const svc = await read(ns, 'existing');
    expect(svc.status?.loadBalancer?.ingress?.[0]?.ip).toBe('10.1.2.3');
    expect(svc.metadata?.finalizers).toEqual([LOAD_BALANCER_CLEANUP_FINALIZER]);
    expect(cloud.balancers.get(cloud.getLoadBalancerName('int-cluster', svc))?.ports).toHaveLength(1);
  });

  it('an unsupported field that only warns: a Warning Event, then the load balancer', async () => {
    const ns = await cut().cluster.createNamespace('caps');
    await createService(ns, 'sticky', { sessionAffinity: 'ClientIP' });
    await eventually(async () => {
      expect((await read(ns, 'sticky')).status?.loadBalancer?.ingress?.[0]?.ip).toBe('10.1.2.3');
    });
    const [warning] = await events(ns, REASON_UNSUPPORTED_SERVICE_FIELD);
    expect(warning?.message).toMatch(
      /^Provider "no-firewall" does not support spec\.sessionAffinity=ClientIP .*; ensuring the load balancer without it$/,
    );
  });
});

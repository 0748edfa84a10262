/**
 * service-lb-controller at start against a real kube-apiserver and FakeCloud: Nodes and LoadBalancer Services
 * exist before it starts, first with no load balancer (a new controller), then converged (a restart). Its node
 * sync from the initial Node adds must not update a load balancer whose first ensure is still to come: upstream
 * (k8s.io/cloud-provider controllers/service/controller.go) makes only the EnsureLoadBalancer calls then
 * (docs/decisions/0204).
 */
import { FakeCloud, type FakeCloudMethod, TestCluster, uniqueName } from '@ccm-kit/testing';
import { eventually, startControllerUnderTest, useControlPlane } from '@ccm-kit/testing/vitest';
import type { V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceLbController } from '../src/service/descriptor.js';

const NODES = 4;
const SERVICES = 6;
// Fewer workers than Services: the first ensures run while the others wait in the queue.
const WORKERS = 3;

const controlPlane = useControlPlane();
const cloud = new FakeCloud({ externalIP: '10.9.8.7', exists: true });
let admin: TestCluster;
let namespace: string;
const services = Array.from({ length: SERVICES }, (_, i) => `lb-${i}`);

beforeAll(async () => {
  admin = new TestCluster(controlPlane());
  namespace = await admin.createNamespace('svc-start');
  for (let i = 0; i < NODES; i++) {
    const name = uniqueName('start-node');
    admin.deleteNodeLater(name);
    await admin.core.createNode({ body: { metadata: { name }, spec: { providerID: `fake://${name}` } } });
  }
  for (const name of services) {
    await admin.core.createNamespacedService({
      namespace,
      body: {
        metadata: { name },
        spec: { type: 'LoadBalancer', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
      },
    });
  }
});

afterAll(async () => {
  await admin?.cleanup();
  await admin?.stop();
});

/** The last call-log sequence number and `UpdatedLoadBalancer` Event count before the current controller. */
let since = 0;
let updatedBefore = 0;
const calls = (method: FakeCloudMethod) =>
  cloud.callLog.entries(method).filter((e) => e.seq > since && e.subject.startsWith(`${namespace}/`));

/** `UpdatedLoadBalancer` Events about this file's Services (their `count` summed, as the recorder aggregates). */
async function updatedEvents(): Promise<number> {
  const list = await admin.core.listNamespacedEvent({ namespace });
  return list.items.filter((e) => e.reason === 'UpdatedLoadBalancer').reduce((n, e) => n + (e.count ?? 1), 0);
}

/** Runs one controller until every Service has its ingress and one EnsureLoadBalancer call each. */
async function runUntilEnsured(): Promise<void> {
  since = cloud.callLog.entries().at(-1)?.seq ?? 0;
  updatedBefore = await updatedEvents();
  const cut = await startControllerUnderTest({
    cloud,
    controller: serviceLbController,
    cluster: controlPlane(),
    config: { clusterName: 'start-cluster', concurrentServiceSyncs: WORKERS },
  });
  try {
    await eventually(async () => {
      expect(calls('ensureLoadBalancer')).toHaveLength(SERVICES);
      const list = await admin.core.listNamespacedService({ namespace });
      const ready = list.items.filter((s: V1Service) => s.status?.loadBalancer?.ingress?.length === 1);
      expect(ready).toHaveLength(SERVICES);
    });
    // Let a late node sync show itself.
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await cut.stop();
  }
}

/** One EnsureLoadBalancer per Service, and no UpdateLoadBalancer, GetLoadBalancer or UpdatedLoadBalancer Event. */
async function expectOnlyEnsures(): Promise<void> {
  expect(
    calls('ensureLoadBalancer')
      .map((e) => e.subject)
      .sort(),
  ).toEqual(services.map((name) => `${namespace}/${name}`));
  expect(calls('updateLoadBalancer')).toEqual([]);
  expect(calls('getLoadBalancer')).toEqual([]);
  expect(await updatedEvents()).toBe(updatedBefore);
}

describe('service-lb-controller at start', () => {
  it('a new controller ensures every load balancer and updates none', async () => {
    await runUntilEnsured();
    await expectOnlyEnsures();
  });

  it('a restarted controller ensures every load balancer again and updates none', async () => {
    await runUntilEnsured();
    await expectOnlyEnsures();
  });
});

/**
 * service-lb-controller with `--service-status-conditions` (docs/decisions/0208) against a real kube-apiserver and
 * FakeCloud: the condition `ccm-kit.io/LoadBalancerServing` appears with the ingress, says why while a balancer
 * is provisioning, failing or refused, and disappears when the Service stops wanting a balancer; Events stay as they
 * are. (Without the flag no condition is written: service-lb.int.test.ts checks it.)
 */
import { RetryError } from '@ccm-kit/cloud-provider';
import { patchOptions } from '@ccm-kit/runtime/client';
import { FakeCloud, kubeletNode, uniqueName as uniq } from '@ccm-kit/testing';
import { eventually, useControllerUnderTest } from '@ccm-kit/testing/vitest';
import type { CoreV1Api, V1Condition, V1Service } from '@kubernetes/client-node';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serviceLbController } from '../src/service/descriptor.js';
import { LOAD_BALANCER_CONDITION_TYPE } from '../src/service/status-condition.js';

const cloud = new FakeCloud({
  externalIP: '10.4.4.4',
  exists: true,
  capabilities: { loadBalancerSourceRanges: false },
});
const cut = useControllerUnderTest(() => ({
  cloud,
  controller: serviceLbController,
  config: { clusterName: 'int-cluster', serviceStatusConditions: true },
}));
let core: CoreV1Api;

beforeAll(async () => {
  core = cut().cluster.core;
  const node = uniq('node');
  cut().cluster.deleteNodeLater(node);
  await core.createNode({ body: kubeletNode(node, { taints: [], providerID: `fake://${node}` }) });
});

afterEach(() => {
  cloud.faults.clear();
});

const createLBService = (namespace: string, name: string, spec: V1Service['spec'] = {}): Promise<V1Service> =>
  core.createNamespacedService({
    namespace,
    body: {
      metadata: { name },
      spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], ...spec },
    },
  });

async function conditionOf(namespace: string, name: string): Promise<{ svc: V1Service; c: V1Condition | undefined }> {
  const svc = await core.readNamespacedService({ namespace, name });
  return { svc, c: svc.status?.conditions?.find((c) => c.type === LOAD_BALANCER_CONDITION_TYPE) };
}

const warnings = async (namespace: string) =>
  (await core.listNamespacedEvent({ namespace })).items.filter((e) => e.type === 'Warning').map((e) => e.message);

describe('service-lb-controller with --service-status-conditions', () => {
  it('sets True (Serving) with the ingress, with observedGeneration, and removes it when the Service stops wanting a balancer', async () => {
    const ns = await cut().cluster.createNamespace('cond');
    await createLBService(ns, 'web');
    const { svc, c } = await eventually(async () => {
      const got = await conditionOf(ns, 'web');
      expect(got.svc.status?.loadBalancer?.ingress?.[0]?.ip).toBe('10.4.4.4');
      expect(got.c).toMatchObject({ status: 'True', reason: 'Serving', message: 'Ensured load balancer' });
      return got;
    });
    expect(c!.observedGeneration).toBe(svc.metadata!.generation);
    expect(c!.lastTransitionTime).toBeDefined();
    await core.patchNamespacedService(
      { namespace: ns, name: 'web', body: { spec: { type: 'ClusterIP' } } },
      patchOptions('merge'),
    );
    await eventually(async () => {
      const got = await conditionOf(ns, 'web');
      expect(got.svc.status?.loadBalancer?.ingress ?? []).toEqual([]);
      expect(got.c).toBeUndefined();
    });
  });

  it('says Provisioning while the provider asks to retry, then Serving', async () => {
    const ns = await cut().cluster.createNamespace('cond');
    cloud.faults.injectError('ensureLoadBalancer', {
      error: new RetryError('load balancer is still provisioning', 300),
      times: 2,
      subject: `${ns}/slow`,
    });
    await createLBService(ns, 'slow');
    const waiting = await eventually(async () => {
      const { c } = await conditionOf(ns, 'slow');
      expect(c).toMatchObject({ status: 'False', reason: 'Provisioning' });
      return c!;
    });
    expect(waiting.message).toMatch(/^Error syncing load balancer: .*load balancer is still provisioning/);
    expect(await warnings(ns)).toContain(waiting.message); // the Warning Event carries the same message
    await eventually(async () => {
      expect((await conditionOf(ns, 'slow')).c).toMatchObject({ status: 'True', reason: 'Serving' });
    });
  });

  it('says Infrastructure with the error while the sync fails, then Serving once it succeeds', async () => {
    const ns = await cut().cluster.createNamespace('cond');
    cloud.faults.injectError('ensureLoadBalancer', {
      error: new Error('quota exceeded'),
      times: 1,
      subject: `${ns}/broken`,
    });
    await createLBService(ns, 'broken');
    const failing = await eventually(async () => {
      const { c } = await conditionOf(ns, 'broken');
      expect(c).toMatchObject({ status: 'False', reason: 'Infrastructure' });
      return c!;
    });
    expect(failing.message).toContain('quota exceeded');
    // Upstream's first retry comes after 5 s.
    await eventually(
      async () => {
        const { c } = await conditionOf(ns, 'broken');
        expect(c).toMatchObject({ status: 'True', reason: 'Serving' });
        expect(c!.lastTransitionTime).not.toEqual(failing.lastTransitionTime);
      },
      { timeoutMs: 20_000 },
    );
  });

  it('names the refused field in the reason (KEP-4631 style) and carries the Warning message', async () => {
    const ns = await cut().cluster.createNamespace('cond');
    await createLBService(ns, 'ranged', { loadBalancerSourceRanges: ['10.0.0.0/8'] });
    const refused = await eventually(async () => {
      const { c } = await conditionOf(ns, 'ranged');
      expect(c).toMatchObject({ status: 'False', reason: 'LoadBalancerSourceRangesNotSupported' });
      return c!;
    });
    expect(await warnings(ns)).toContain(refused.message);
    expect(cloud.callLog.entries('ensureLoadBalancer').some((e) => e.subject === `${ns}/ranged`)).toBe(false);
  });
});

/**
 * The fenced provider the leader-elected controllers get (docs/decisions/0050-lease-fencing.md): facet calls
 * are refused while fenced without reaching the cloud, and a refusal never leads to a Node deletion.
 */
import { CloudNodeLifecycleController } from '@ccm-kit/controllers/internal';
import { createLogger } from '@ccm-kit/runtime';
import { isLeaseFencedError, type LeaseFence } from '@ccm-kit/runtime/leader-election';
import { FakeCloud, MemoryInformer, RecordingEventRecorder } from '@ccm-kit/testing';
import type { CoreV1Api, V1Node, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { fencedCloud } from '../src/manager/fenced-cloud.js';

function switchableFence() {
  const state = { fenced: true };
  const fence: LeaseFence = {
    isFenced: () => state.fenced,
    validForMs: () => (state.fenced ? 0 : 60_000),
    describe: () => 'kube-system/cloud-controller-manager',
  };
  return { state, fence };
}

const service: V1Service = { metadata: { name: 's', namespace: 'default', uid: 'u1' }, spec: { type: 'LoadBalancer' } };

describe('fencedCloud', () => {
  it('refuses facet calls while fenced, without calling the cloud, and passes them once unfenced', async () => {
    const fake = new FakeCloud({ enableInstancesV2: true });
    const { state, fence } = switchableFence();
    const cloud = fencedCloud(fake, () => fence);
    const lb = cloud.loadBalancer!()!;
    const err = await lb.ensureLoadBalancer('kubernetes', service, []).catch((e: unknown) => e);
    expect(isLeaseFencedError(err)).toBe(true);
    expect((err as Error).message).toMatch(/^cloud call loadBalancer\.ensureLoadBalancer refused/);
    await expect(cloud.instancesV2!()!.instanceExists({ metadata: { name: 'n' } })).rejects.toThrow(
      /cloud call instancesV2\.instanceExists refused/,
    );
    expect(fake.calls).toEqual([]);
    // Local helpers and the provider's own methods are not cloud calls.
    expect(lb.getLoadBalancerName('kubernetes', service)).toBe(
      fake.loadBalancer()!.getLoadBalancerName('kubernetes', service),
    );
    expect(cloud.providerName()).toBe(fake.providerName());
    fake.loadBalancerGroup = (_c, svc) => svc.metadata?.namespace;
    expect(lb.loadBalancerGroup!('kubernetes', service)).toBe('default'); // answered at once, not a refused Promise
    state.fenced = false;
    await lb.ensureLoadBalancer('kubernetes', service, []);
    expect(fake.calls).toContain('create');
    expect(cloud.loadBalancer!()).toBe(lb); // the same wrapped facet each time
  });

  it('without a fence (no leader election) nothing is refused', async () => {
    const fake = new FakeCloud({ enableInstancesV2: true });
    const cloud = fencedCloud(fake, () => undefined);
    await cloud.instancesV2!()!.instanceExists({ metadata: { name: 'n' }, spec: { providerID: 'fake://n' } });
    expect(fake.calls.length).toBe(1);
  });

  it('a fenced node-lifecycle pass deletes no Node, even for machines the cloud says are gone', async () => {
    const fake = new FakeCloud(); // every instance is reported gone
    const { state, fence } = switchableFence();
    const nodes: V1Node[] = [
      {
        metadata: { name: 'a', uid: 'ua' },
        spec: { providerID: 'fake://a' },
        status: { conditions: [{ type: 'Ready', status: 'False' }] },
      },
    ];
    const deleted: string[] = [];
    const client = {
      deleteNode: async ({ name }: { name: string }) => void deleted.push(name),
    } as unknown as CoreV1Api;
    const informer = new MemoryInformer(nodes);
    const c = new CloudNodeLifecycleController({
      informers: { nodes: () => informer },
      client,
      cloud: fencedCloud(fake, () => fence),
      recorder: new RecordingEventRecorder(),
      logger: createLogger('fenced-cloud-test'),
      config: {},
    });
    await c.monitorNodes();
    expect(deleted).toEqual([]);
    expect(fake.calls).toEqual([]);
    state.fenced = false;
    await c.monitorNodes();
    expect(deleted).toEqual(['a']);
  });

  it('passes the optional batch read through, fenced like any cloud call, and leaves it absent when the provider has none', async () => {
    const fake = new FakeCloud({ enableInstancesV2: true, instanceStatePageSize: 1 });
    fake.setInstance('fake://a', {});
    fake.setInstance('fake://b', { shutdown: true });
    const { state, fence } = switchableFence();
    const v2 = fencedCloud(fake, () => fence).instancesV2!()!;
    await expect(v2.listInstanceStates!(undefined)).rejects.toThrow(
      /cloud call instancesV2\.listInstanceStates refused/,
    );
    state.fenced = false;
    const first = await v2.listInstanceStates!(undefined);
    const second = await v2.listInstanceStates!(first.nextPageToken);
    expect([...first.instances, ...second.instances].map((i) => [i.providerID, i.shutdown])).toEqual([
      ['fake://a', false],
      ['fake://b', true],
    ]);
    expect(
      fencedCloud(new FakeCloud({ enableInstancesV2: true }), () => undefined).instancesV2!()!.listInstanceStates,
    ).toBeUndefined();
  });
});

import { FakeCloud, loadBalancerService } from '@ccm-kit/testing';
import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { node } from './fake-cloud-fixture.js';

const CLUSTER = 'kubernetes';
const svc = (i: number): V1Service =>
  loadBalancerService(`svc-${i}`, {
    uid: `0000-${String(i).padStart(4, '0')}`,
    ports: [{ port: 80 + i, protocol: 'TCP' }],
  });

/** A seeded PRNG (mulberry32) so a failure can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Starts `call` after `ms` milliseconds, so calls for one service overlap in a random order. */
async function later<T>(ms: number, call: () => Promise<T>): Promise<T> {
  await new Promise((r) => setTimeout(r, ms));
  return call();
}

describe('FakeCloud under concurrent calls', () => {
  it('many parallel ensure/delete calls leave each balancer as the last completed call made it', async () => {
    const random = seeded(42);
    const cloud = new FakeCloud({ random, requestDelayMs: 1 });
    cloud.faults.setLatency(['ensureLoadBalancer', 'ensureLoadBalancerDeleted'], { minMs: 0, maxMs: 8 });
    // an async callback (it serializes ensure calls, as upstream's lock; a timer here would make every
    // ensure finish after every delete)
    let callbacks = 0;
    cloud.ensureCallCb = async () => {
      await Promise.resolve();
      callbacks++;
    };
    const services = Array.from({ length: 40 }, (_, i) => svc(i));
    const lastCompleted = new Map<string, { op: 'ensure' | 'delete'; hosts: string[] }>();
    const ops: Promise<unknown>[] = [];
    let ensures = 0;
    let deletes = 0;
    for (let round = 0; round < 10; round++) {
      for (const s of services) {
        const name = cloud.getLoadBalancerName(CLUSTER, s);
        if (random() < 0.6) {
          ensures++;
          const hosts = [node(`n-${round}`), node(`m-${round}`)];
          ops.push(
            later(random() * 30, () => cloud.ensureLoadBalancer(CLUSTER, s, hosts)).then((status) => {
              expect(status.ingress?.[0]?.ports).toEqual([{ port: s.spec!.ports![0]!.port, protocol: 'TCP' }]);
              lastCompleted.set(name, { op: 'ensure', hosts: hosts.map((h) => h.metadata!.name!) });
            }),
          );
        } else {
          deletes++;
          ops.push(
            later(random() * 30, () => cloud.ensureLoadBalancerDeleted(CLUSTER, s)).then(() =>
              lastCompleted.set(name, { op: 'delete', hosts: [] }),
            ),
          );
        }
      }
    }
    await Promise.all(ops);
    // A final concurrent wave, after every earlier call has settled, makes both outcomes occur whatever the
    // scheduling (under load ensures, serialized by their callbacks, tend to finish last): even services end
    // deleted, odd ones ensured.
    await Promise.all(
      services.map((s, i) => {
        const name = cloud.getLoadBalancerName(CLUSTER, s);
        if (i % 2 === 0) {
          deletes++;
          return later(random() * 30, () => cloud.ensureLoadBalancerDeleted(CLUSTER, s)).then(() =>
            lastCompleted.set(name, { op: 'delete', hosts: [] }),
          );
        }
        ensures++;
        const hosts = [node(`final-${i}`)];
        return later(random() * 30, () => cloud.ensureLoadBalancer(CLUSTER, s, hosts)).then(() =>
          lastCompleted.set(name, { op: 'ensure', hosts: hosts.map((h) => h.metadata!.name!) }),
        );
      }),
    );

    const lastOps = [...lastCompleted.values()].map((v) => v.op);
    expect(lastOps).toContain('ensure');
    expect(lastOps).toContain('delete');
    for (const [name, last] of lastCompleted) {
      const stored = cloud.balancers.get(name);
      if (last.op === 'delete') expect(stored, name).toBeUndefined();
      else
        expect(
          stored?.hosts.map((h) => h.metadata?.name),
          name,
        ).toEqual(last.hosts);
    }
    expect(cloud.ensureCalls).toHaveLength(ensures);
    expect(callbacks).toBe(ensures);
    expect(cloud.callCount('ensureLoadBalancer')).toBe(ensures);
    expect(cloud.callCount('ensureLoadBalancerDeleted')).toBe(deletes);
    const calls = cloud.calls;
    expect(calls.filter((c) => c === 'create')).toHaveLength(ensures);
    expect(calls.filter((c) => c === 'get-zone')).toHaveLength(ensures);
    expect(calls.filter((c) => c === 'delete')).toHaveLength(deletes);
    expect(calls).toHaveLength(2 * ensures + deletes);
    const entries = cloud.callLog.entries();
    expect(entries).toHaveLength(ensures + deletes);
    expect(entries.every((e) => e.outcome === 'ok' && e.endMs !== undefined)).toBe(true);
    expect(new Set(entries.map((e) => e.seq)).size).toBe(entries.length);
    // the ensure calls of one invocation stay paired in its log entry even though the calls interleaved
    expect(
      entries.filter((e) => e.method === 'ensureLoadBalancer').every((e) => e.calls.join() === 'create,get-zone'),
    ).toBe(true);
    // and they really did interleave: some create is followed by another call before its get-zone
    expect(calls.some((c, i) => c === 'create' && calls[i + 1] !== 'get-zone')).toBe(true);
  });

  it('parallel creates of the same route: exactly one wins, the rest get the conflict error', async () => {
    const cloud = new FakeCloud({ random: seeded(7) });
    cloud.faults.setLatency('createRoute', { minMs: 0, maxMs: 5 });
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        cloud.createRoute('my-k8s', `hint-${i}`, {
          targetNode: `node-${i % 3}`,
          destinationCIDR: `10.0.${i % 3}.0/24`,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(27);
    expect([...cloud.routeMap.keys()].sort()).toEqual([
      'my-k8s-node-0-10.0.0.0/24',
      'my-k8s-node-1-10.0.1.0/24',
      'my-k8s-node-2-10.0.2.0/24',
    ]);
    expect(cloud.err?.message).toMatch(/already exists$/);
  });

  it('parallel calls with injected failures and throttling keep counters and records consistent', async () => {
    const random = seeded(3);
    const cloud = new FakeCloud({ random, enableInstancesV2: true });
    cloud.faults
      .setLatency('*', { minMs: 0, maxMs: 3 })
      .injectError('instanceExists', { probability: 0.3 })
      .throttle({ qps: 1, burst: 50, methods: ['instanceMetadata'] });
    cloud.setInstance('node-0', { instanceType: 't' });
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0 ? cloud.instanceExists(node(`node-${i % 5}`)) : cloud.instanceMetadata(node(`node-${i % 5}`)),
      ),
    );
    const failedExists = results.filter((r, i) => i % 2 === 0 && r.status === 'rejected').length;
    const failedMetadata = results.filter((r, i) => i % 2 === 1 && r.status === 'rejected').length;
    expect(failedMetadata).toBe(50);
    expect(failedExists).toBeGreaterThan(0);
    expect(cloud.callCounts()).toEqual({ instanceExists: 100, instanceMetadata: 100 });
    expect(cloud.calls.filter((c) => c === 'instance-exists')).toHaveLength(100 - failedExists);
    expect(cloud.calls.filter((c) => c === 'instance-metadata-by-provider-id')).toHaveLength(50);
    expect(cloud.callLog.entries().filter((e) => e.outcome === 'error')).toHaveLength(failedExists + 50);
  });
});

describe('FakeCloud load-balancer groups', () => {
  const inNamespace = (name: string, namespace: string) => loadBalancerService(name, { namespace });

  it('offers no loadBalancerGroup by default and counts no overlaps', async () => {
    const cloud = new FakeCloud();
    expect(cloud.loadBalancer()!.loadBalancerGroup).toBeUndefined();
    cloud.faults.setLatency('ensureLoadBalancer', 20);
    await Promise.all([cloud.ensureLoadBalancer(CLUSTER, svc(1), []), cloud.ensureLoadBalancer(CLUSTER, svc(2), [])]);
    expect(cloud.groupOverlaps).toBe(0);
  });

  it('counts a load-balancer call that begins while another on the same group is in flight', async () => {
    const cloud = new FakeCloud({ loadBalancerGroup: (_c, s) => s.metadata?.namespace });
    cloud.faults.setLatency('*', 20);
    await Promise.all([
      cloud.ensureLoadBalancer(CLUSTER, inNamespace('a', 'team-a'), []),
      cloud.ensureLoadBalancer(CLUSTER, inNamespace('b', 'team-b'), []),
    ]);
    expect(cloud.groupOverlaps).toBe(0);
    await Promise.all([
      cloud.ensureLoadBalancer(CLUSTER, inNamespace('a', 'team-a'), []),
      cloud.updateLoadBalancer(CLUSTER, inNamespace('c', 'team-a'), []),
      cloud.ensureLoadBalancerDeleted(CLUSTER, inNamespace('d', 'team-a')),
    ]);
    expect(cloud.groupOverlaps).toBe(2);
    await cloud.getLoadBalancer(CLUSTER, inNamespace('a', 'team-a'));
    expect(cloud.groupOverlaps).toBe(2); // sequential calls never overlap
  });
});

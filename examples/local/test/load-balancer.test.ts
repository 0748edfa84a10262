import { findError, InvalidAnnotationError } from '@ccm-kit/cloud-provider';
import type { V1Service } from '@kubernetes/client-node';
import { beforeEach, describe, expect, it } from 'vitest';
import { RecordingEventRecorder } from '@ccm-kit/testing';
import { ServiceGoneError } from '../src/allocation-store.js';
import { ANNOTATION_ALLOCATED_IPS, ANNOTATION_IPS, ANNOTATION_POOL } from '../src/annotations.js';
import { type LocalConfig, parseConfig } from '../src/config.js';
import { IPConflictError, PoolExhaustedError } from '../src/ipam.js';
import { EVENT_REASONS, LocalLoadBalancer } from '../src/load-balancer.js';
import { apiError, FakeServiceStore, lbService, nodeWith, RecordingDataPlane } from './fakes.js';

const config: LocalConfig = parseConfig(`
inventory: i.yaml
healthCheckInterval: 1s
pools:
  - name: global
    addresses: [127.0.2.1-127.0.2.3, "fd00:2::/126"]
  - name: spare
    addresses: [127.0.9.1]
`);

let store: FakeServiceStore;
let recorder: RecordingEventRecorder;
let dataPlane: RecordingDataPlane;
let lb: LocalLoadBalancer;

function newLoadBalancer(): LocalLoadBalancer {
  return new LocalLoadBalancer({
    config,
    store,
    recorder,
    dataPlane,
    isRunning: (k) => dataPlane.running.has(k),
  });
}

beforeEach(() => {
  store = new FakeServiceStore();
  recorder = new RecordingEventRecorder();
  dataPlane = new RecordingDataPlane();
  lb = newLoadBalancer();
});

const nodes = [nodeWith('n1', '10.0.0.1'), nodeWith('n2', '10.0.0.2', 'fd00::2')];

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('LocalLoadBalancer.ensureLoadBalancer', () => {
  it('allocates, records the addresses on the Service, starts the data plane and reports VIP status', async () => {
    const svc = store.put(lbService('web'));
    const status = await lb.ensureLoadBalancer('kubernetes', svc, nodes);
    expect(status).toEqual({ ingress: [{ ip: '127.0.2.1', ipMode: 'VIP' }] });
    expect(store.stored('default', 'web')?.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBe('127.0.2.1');
    const spec = dataPlane.running.get(svc.metadata!.uid!);
    expect(spec).toMatchObject({
      ips: ['127.0.2.1'],
      ports: [{ name: 'http', port: 80, nodePort: 30080 }],
      nodes: [
        { name: 'n1', ipv4: '10.0.0.1' },
        { name: 'n2', ipv4: '10.0.0.2', ipv6: 'fd00::2' },
      ],
      algorithm: 'round-robin',
      healthCheckIntervalMs: 1_000,
    });
    expect(await lb.getLoadBalancer('kubernetes', svc)).toEqual(status);
    expect(recorder.events).toEqual([]);
  });

  it('is idempotent: the same addresses, no second write', async () => {
    const svc = store.put(lbService('web'));
    await lb.ensureLoadBalancer('kubernetes', svc, nodes);
    const patches = store.patches;
    const again = await lb.ensureLoadBalancer('kubernetes', store.stored('default', 'web')!, nodes);
    expect(again.ingress?.[0]?.ip).toBe('127.0.2.1');
    expect(store.patches).toBe(patches);
    expect(lb.ipam.size).toBe(1);
  });

  it('allocates dual-stack addresses following ipFamilies', async () => {
    const svc = store.put(
      lbService('dual', { spec: { ipFamilies: ['IPv6', 'IPv4'], ipFamilyPolicy: 'RequireDualStack' } }),
    );
    const status = await lb.ensureLoadBalancer('kubernetes', svc, nodes);
    expect(status.ingress?.map((i) => i.ip)).toEqual(['fd00:2::1', '127.0.2.1']);
    expect(store.stored('default', 'dual')?.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBe(
      'fd00:2::1,127.0.2.1',
    );
  });

  it('fails on invalid annotations with a Warning Event, allocating and writing nothing', async () => {
    const svc = store.put(lbService('bad', { annotations: { [ANNOTATION_POOL]: 'nope', 'local.ccm-kit.io/x': '1' } }));
    const err = await rejection(lb.ensureLoadBalancer('kubernetes', svc, nodes));
    expect(err.message).toBe(
      'local: cannot create the load balancer of default/bad: local.ccm-kit.io/x: is unknown (did you mean ' +
        'local.ccm-kit.io/ips?); ' +
        'local.ccm-kit.io/pool: pool "nope" does not exist (pools: global, spare)',
    );
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({
      type: 'Warning',
      reason: EVENT_REASONS.invalidAnnotation,
      object: {
        kind: 'Service',
        apiVersion: 'v1',
        name: 'bad',
        namespace: 'default',
        uid: svc.metadata?.uid,
      },
    });
    expect(recorder.events[0]?.message).toContain('pool "nope" does not exist');
    const invalid = findError(err, InvalidAnnotationError);
    expect(invalid?.problems.map((p) => [p.annotation, p.value])).toEqual([
      ['local.ccm-kit.io/x', '1'],
      [ANNOTATION_POOL, 'nope'],
    ]);
    expect(lb.ipam.size).toBe(0);
    expect(store.patches).toBe(0);
    expect(dataPlane.calls).toEqual([]);
  });

  it('rejects SCTP with an UnsupportedLoadBalancer Warning', async () => {
    const svc = store.put(lbService('sig', { spec: { ports: [{ port: 3868, protocol: 'SCTP', nodePort: 30068 }] } }));
    const err = await rejection(lb.ensureLoadBalancer('kubernetes', svc, nodes));
    expect(err.message).toContain(
      'spec.ports[0]: protocol SCTP is not supported by the local proxy data plane (TCP and UDP only)',
    );
    expect(recorder.events.map((e) => e.reason)).toEqual([EVENT_REASONS.unsupported]);
    expect(lb.ipam.size).toBe(0);
  });

  it('keeps a working load balancer when its annotations become invalid', async () => {
    const svc = store.put(lbService('web'));
    await lb.ensureLoadBalancer('kubernetes', svc, nodes);
    const broken: V1Service = {
      ...svc,
      metadata: { ...svc.metadata, annotations: { [ANNOTATION_POOL]: 'nope' } },
    };
    await expect(lb.ensureLoadBalancer('kubernetes', broken, nodes)).rejects.toThrow(/does not exist/);
    expect(lb.ipam.get(svc.metadata!.uid!)).toEqual(['127.0.2.1']);
    expect(dataPlane.running.has(svc.metadata!.uid!)).toBe(true);
  });

  it('reports pool exhaustion with a Warning and leaves the table unchanged', async () => {
    await lb.ensureLoadBalancer(
      'kubernetes',
      store.put(lbService('a', { annotations: { [ANNOTATION_POOL]: 'spare' } })),
      nodes,
    );
    const b = store.put(lbService('b', { annotations: { [ANNOTATION_POOL]: 'spare' } }));
    const err = await rejection(lb.ensureLoadBalancer('kubernetes', b, nodes));
    expect(err).toBeInstanceOf(PoolExhaustedError);
    expect(recorder.events.map((e) => [e.reason, e.message])).toEqual([
      [EVENT_REASONS.poolExhausted, 'pool "spare" has no free IPv4 address'],
    ]);
    expect(lb.ipam.size).toBe(1);
    expect(store.stored('default', 'b')?.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBeUndefined();
  });

  it('honours static addresses and reports a conflict', async () => {
    const a = store.put(lbService('a', { annotations: { [ANNOTATION_IPS]: '127.0.2.3' } }));
    expect((await lb.ensureLoadBalancer('kubernetes', a, nodes)).ingress?.[0]?.ip).toBe('127.0.2.3');
    const b = store.put(lbService('b', { spec: { loadBalancerIP: '127.0.2.3' } }));
    expect(await rejection(lb.ensureLoadBalancer('kubernetes', b, nodes))).toBeInstanceOf(IPConflictError);
    expect(recorder.events.map((e) => e.reason)).toEqual([EVENT_REASONS.ipConflict]);
    // Changing the static address moves the load balancer and frees the old address.
    const moved = store.put({
      ...store.stored('default', 'a')!,
      metadata: { ...store.stored('default', 'a')!.metadata, annotations: { [ANNOTATION_IPS]: '127.0.2.2' } },
    });
    expect((await lb.ensureLoadBalancer('kubernetes', moved, nodes)).ingress?.[0]?.ip).toBe('127.0.2.2');
    expect(lb.ipam.holderOf('127.0.2.3')).toBeUndefined();
    expect((await lb.ensureLoadBalancer('kubernetes', b, nodes)).ingress?.[0]?.ip).toBe('127.0.2.3');
  });

  it('rolls back when the record cannot be written: nothing leaks, old addresses kept', async () => {
    const svc = store.put(lbService('web'));
    store.patchErrors.push(apiError(500, 'InternalError'));
    await expect(lb.ensureLoadBalancer('kubernetes', svc, nodes)).rejects.toThrow('HTTP 500 InternalError');
    expect(lb.ipam.size).toBe(0);
    expect(dataPlane.calls).toEqual([]);
    // Allocated, then a move to another pool fails: the old address stays, the new one is free again.
    await lb.ensureLoadBalancer('kubernetes', store.stored('default', 'web')!, nodes);
    const move = store.stored('default', 'web')!;
    move.metadata!.annotations = { ...move.metadata?.annotations, [ANNOTATION_POOL]: 'spare' };
    store.patchErrors.push(apiError(503, 'ServiceUnavailable'));
    await expect(lb.ensureLoadBalancer('kubernetes', move, nodes)).rejects.toThrow('503');
    expect(lb.ipam.entries()).toEqual([[svc.metadata!.uid!, ['127.0.2.1']]]);
    expect(lb.ipam.holderOf('127.0.9.1')).toBeUndefined();
  });

  it('retries a conflicting write against a fresh read', async () => {
    const stale = store.put(lbService('web'));
    store.put(store.stored('default', 'web')!); // someone else changed the Service: new resourceVersion
    await lb.ensureLoadBalancer('kubernetes', stale, nodes);
    expect(store.patches).toBe(2);
    expect(store.stored('default', 'web')?.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBe('127.0.2.1');
  });

  it('never writes to a Service re-created under the same name', async () => {
    const old = store.put(lbService('web', { uid: 'old-uid' }));
    store.put(lbService('web', { uid: 'new-uid' }));
    const err = await rejection(lb.ensureLoadBalancer('kubernetes', old, nodes));
    expect(err).toBeInstanceOf(ServiceGoneError);
    expect(store.stored('default', 'web')?.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBeUndefined();
    expect(lb.ipam.size).toBe(0);
  });
});

describe('LocalLoadBalancer restart: rebuilding from annotations', () => {
  it('re-reads allocations from Services (older Service wins a duplicate) and keeps them', async () => {
    store.put(
      lbService('older', {
        uid: 'u-older',
        created: '2026-01-01T00:00:00Z',
        annotations: { [ANNOTATION_ALLOCATED_IPS]: '127.0.2.2' },
      }),
    );
    store.put(
      lbService('newer', {
        uid: 'u-newer',
        created: '2026-02-01T00:00:00Z',
        annotations: { [ANNOTATION_ALLOCATED_IPS]: '127.0.2.2' },
      }),
    );
    store.put(
      lbService('cluster-ip', {
        uid: 'u-cip',
        annotations: { [ANNOTATION_ALLOCATED_IPS]: '127.0.2.1' },
        spec: { type: 'ClusterIP' },
      }),
    );
    store.put(
      lbService('classy', {
        uid: 'u-class',
        annotations: { [ANNOTATION_ALLOCATED_IPS]: '127.0.2.3' },
        spec: { loadBalancerClass: 'example.com/other' },
      }),
    );
    expect(await lb.getLoadBalancer('kubernetes', store.stored('default', 'older')!)).toEqual({
      ingress: [{ ip: '127.0.2.2', ipMode: 'VIP' }],
    });
    expect(await lb.getLoadBalancer('kubernetes', store.stored('default', 'newer')!)).toBeUndefined();
    expect(lb.ipam.entries()).toEqual([['u-older', ['127.0.2.2']]]);
    expect(store.lists).toBe(1);

    // The older one keeps its address without a write; the newer one gets a new address, recorded.
    const patches = store.patches;
    expect((await lb.ensureLoadBalancer('kubernetes', store.stored('default', 'older')!, nodes)).ingress?.[0]?.ip).toBe(
      '127.0.2.2',
    );
    expect(store.patches).toBe(patches);
    expect((await lb.ensureLoadBalancer('kubernetes', store.stored('default', 'newer')!, nodes)).ingress?.[0]?.ip).toBe(
      '127.0.2.1',
    );
    expect(store.stored('default', 'newer')?.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBe('127.0.2.1');
    expect(store.lists).toBe(1);
  });

  it('a new provider instance sees what the previous one allocated', async () => {
    await lb.ensureLoadBalancer('kubernetes', store.put(lbService('a')), nodes);
    await lb.ensureLoadBalancer(
      'kubernetes',
      store.put(lbService('b', { spec: { ipFamilyPolicy: 'RequireDualStack' } })),
      nodes,
    );
    const restarted = newLoadBalancer();
    await restarted.ready();
    expect(restarted.ipam.entries().map(([, ips]) => ips)).toEqual([['127.0.2.1'], ['127.0.2.2', 'fd00:2::1']]);
    const c = await restarted.ensureLoadBalancer('kubernetes', store.put(lbService('c')), nodes);
    expect(c.ingress?.[0]?.ip).toBe('127.0.2.3');
  });

  it('takes back a free address recorded on a Service created after the rebuild (restored from a backup)', async () => {
    await lb.ready();
    const restored = store.put(lbService('restored', { annotations: { [ANNOTATION_ALLOCATED_IPS]: '127.0.2.3' } }));
    expect((await lb.ensureLoadBalancer('kubernetes', restored, nodes)).ingress?.[0]?.ip).toBe('127.0.2.3');
    // A copy of it (same record, other Service) does not get the held address.
    const copy = store.put(lbService('copy', { annotations: { [ANNOTATION_ALLOCATED_IPS]: '127.0.2.3' } }));
    expect((await lb.ensureLoadBalancer('kubernetes', copy, nodes)).ingress?.[0]?.ip).toBe('127.0.2.1');
    expect(store.stored('default', 'copy')?.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBe('127.0.2.1');
  });

  it('retries a failed rebuild on the next call', async () => {
    const failing = new LocalLoadBalancer({
      config,
      recorder,
      dataPlane,
      store: {
        ...store,
        list: async () => {
          throw apiError(503, 'ServiceUnavailable');
        },
        get: store.get.bind(store),
        patchAnnotations: store.patchAnnotations.bind(store),
      },
    });
    const svc = lbService('x');
    await expect(failing.getLoadBalancer('kubernetes', svc)).rejects.toThrow(
      'local: cannot rebuild the allocation table from Services: HTTP 503 ServiceUnavailable',
    );
    await lb.ready();
    expect(store.lists).toBe(1);
  });
});

describe('LocalLoadBalancer update and delete', () => {
  it('updateLoadBalancer changes only the nodes of a running load balancer', async () => {
    const svc = store.put(lbService('web'));
    await lb.ensureLoadBalancer('kubernetes', svc, nodes);
    const patches = store.patches;
    await lb.updateLoadBalancer('kubernetes', svc, [nodeWith('n3', '10.0.0.3')]);
    expect(dataPlane.calls).toEqual([`ensure ${svc.metadata!.uid}`, `update ${svc.metadata!.uid}`]);
    expect(dataPlane.running.get(svc.metadata!.uid!)?.nodes).toEqual([{ name: 'n3', ipv4: '10.0.0.3' }]);
    expect(store.patches).toBe(patches);
  });

  it('takes the backends from the addresses the cloud knows for each machine, else from the Node', async () => {
    // The cloud-node controller writes a Node's addresses after its providerID, and a host update starts for the
    // providerID alone: the Nodes it is given may not have their addresses yet.
    const known: Record<string, string> = { n1: '10.0.1.1', n2: '10.0.1.2' };
    lb = new LocalLoadBalancer({
      config,
      store,
      recorder,
      dataPlane,
      isRunning: (k) => dataPlane.running.has(k),
      machineAddresses: (node) => {
        const ip = known[node.metadata!.name!];
        return ip === undefined ? undefined : [{ type: 'InternalIP', address: ip }];
      },
    });
    const svc = store.put(lbService('web'));
    await lb.ensureLoadBalancer('kubernetes', svc, [nodeWith('n1'), nodeWith('n3', '10.0.0.3')]);
    expect(dataPlane.running.get(svc.metadata!.uid!)?.nodes).toEqual([
      { name: 'n1', ipv4: '10.0.1.1' },
      { name: 'n3', ipv4: '10.0.0.3' },
    ]);
    await lb.updateLoadBalancer('kubernetes', svc, [nodeWith('n1'), nodeWith('n2', '10.0.0.2')]);
    expect(dataPlane.running.get(svc.metadata!.uid!)?.nodes).toEqual([
      { name: 'n1', ipv4: '10.0.1.1' },
      { name: 'n2', ipv4: '10.0.1.2' },
    ]);
  });

  it('updateLoadBalancer ensures in full a load balancer the data plane does not run (after a restart)', async () => {
    const svc = store.put(lbService('web', { annotations: { [ANNOTATION_ALLOCATED_IPS]: '127.0.2.3' } }));
    await lb.updateLoadBalancer('kubernetes', svc, nodes);
    expect(dataPlane.calls).toEqual([`ensure ${svc.metadata!.uid}`]);
    expect(dataPlane.running.get(svc.metadata!.uid!)?.ips).toEqual(['127.0.2.3']);
  });

  it('ensureLoadBalancerDeleted stops, clears the record, releases; and is idempotent', async () => {
    const svc = store.put(lbService('web'));
    await lb.ensureLoadBalancer('kubernetes', svc, nodes);
    const current = store.stored('default', 'web')!;
    await lb.ensureLoadBalancerDeleted('kubernetes', current);
    expect(dataPlane.running.size).toBe(0);
    expect(lb.ipam.size).toBe(0);
    expect(store.stored('default', 'web')?.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBeUndefined();
    expect(await lb.getLoadBalancer('kubernetes', current)).toBeUndefined();
    const patches = store.patches;
    await lb.ensureLoadBalancerDeleted('kubernetes', store.stored('default', 'web')!);
    expect(store.patches).toBe(patches);
  });

  it('ensureLoadBalancerDeleted succeeds when the Service is already gone', async () => {
    const svc = store.put(lbService('web'));
    await lb.ensureLoadBalancer('kubernetes', svc, nodes);
    const last = store.stored('default', 'web')!;
    store.services.clear();
    await lb.ensureLoadBalancerDeleted('kubernetes', last);
    expect(lb.ipam.size).toBe(0);
  });

  it('ensureLoadBalancerDeleted keeps the addresses when the record cannot be cleared', async () => {
    const svc = store.put(lbService('web'));
    await lb.ensureLoadBalancer('kubernetes', svc, nodes);
    store.patchErrors.push(apiError(500, 'InternalError'));
    await expect(lb.ensureLoadBalancerDeleted('kubernetes', store.stored('default', 'web')!)).rejects.toThrow('500');
    expect(lb.ipam.size).toBe(1);
    expect(await lb.getLoadBalancer('kubernetes', svc)).toBeDefined();
  });

  it('names load balancers like upstream', () => {
    expect(lb.getLoadBalancerName('kubernetes', lbService('x', { uid: '1234-5678' }))).toBe('a12345678');
  });
});

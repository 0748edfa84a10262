/**
 * The allocation record against a real kube-apiserver: written with a merge patch (conflict-safe), read back
 * by a restarted provider, cleared on delete; invalid annotations become Warning Events.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClientFactory, patchOptions } from '@ccm-kit/runtime/client';
import { eventuallyValue, useTestCluster } from '@ccm-kit/testing/vitest';
import type { CoreV1Api, V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_ALLOCATED_IPS, ANNOTATION_POOL } from '../src/annotations.js';
import { parseConfig } from '../src/config.js';
import { InventoryWatcher } from '../src/inventory-watcher.js';
import { EVENT_REASONS } from '../src/load-balancer.js';
import { LocalCloud } from '../src/provider.js';

const cluster = useTestCluster();

let dir: string;
let factory: ClientFactory;
let api: CoreV1Api;
const clouds: LocalCloud[] = [];
const aborts: AbortController[] = [];

const config = parseConfig(`
clusterID: int-test
inventory: /dev/null
dataPlane: none
pools:
  - name: global
    addresses: [127.0.2.10-127.0.2.12, "fd00:2::10-fd00:2::12"]
`);

async function newCloud(): Promise<LocalCloud> {
  const inventory = await InventoryWatcher.open(join(dir, 'inventory.yaml'));
  const cloud = new LocalCloud({ config, inventory });
  const abort = new AbortController();
  await cloud.initialize(factory, abort.signal);
  clouds.push(cloud);
  aborts.push(abort);
  return cloud;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccm-local-int-'));
  await writeFile(join(dir, 'inventory.yaml'), 'machines: []');
  factory = cluster().clients;
  api = cluster().core;
});

afterAll(async () => {
  for (const a of aborts) a.abort();
  await Promise.all(clouds.map((c) => c.close()));
  await rm(dir, { recursive: true, force: true });
});

const namespace = (name: string) => cluster().createNamespace(name);

async function createService(ns: string, name: string, extra: Partial<V1Service['spec']> = {}, annotations = {}) {
  return api.createNamespacedService({
    namespace: ns,
    body: {
      metadata: { name, annotations },
      spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }], ...extra },
    },
  });
}

describe('local provider allocations on a real API server', () => {
  it('records allocations on Services, and a restarted provider reads them back', async () => {
    const ns = await namespace('alloc');
    const cloud = await newCloud();
    const lb = cloud.loadBalancer();
    const a = await createService(ns, 'a');
    const b = await createService(ns, 'b', { ipFamilyPolicy: 'PreferDualStack' });
    expect(a.spec?.ipFamilies).toEqual(['IPv4']); // set by the API server

    expect(await lb.ensureLoadBalancer('kubernetes', a, [])).toEqual({
      ingress: [{ ip: '127.0.2.10', ipMode: 'VIP' }],
    });
    const statusB = await lb.ensureLoadBalancer('kubernetes', b, []);
    expect(statusB.ingress?.map((i) => i.ip)).toEqual(['127.0.2.11', 'fd00:2::10']);
    const storedA = await api.readNamespacedService({ namespace: ns, name: 'a' });
    const storedB = await api.readNamespacedService({ namespace: ns, name: 'b' });
    expect(storedA.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBe('127.0.2.10');
    expect(storedB.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBe('127.0.2.11,fd00:2::10');

    // A new process: no memory, only the Services.
    const restarted = (await newCloud()).loadBalancer();
    expect(await restarted.getLoadBalancer('kubernetes', storedA)).toEqual({
      ingress: [{ ip: '127.0.2.10', ipMode: 'VIP' }],
    });
    expect((await restarted.getLoadBalancer('kubernetes', storedB))?.ingress?.map((i) => i.ip)).toEqual([
      '127.0.2.11',
      'fd00:2::10',
    ]);
    const c = await createService(ns, 'c');
    expect((await restarted.ensureLoadBalancer('kubernetes', c, [])).ingress?.[0]?.ip).toBe('127.0.2.12');
    const d = await createService(ns, 'd');
    await expect(restarted.ensureLoadBalancer('kubernetes', d, [])).rejects.toThrow(
      'pool "global" has no free IPv4 address',
    );

    // Deleting clears the record, so the next restart does not see it.
    await restarted.ensureLoadBalancerDeleted(
      'kubernetes',
      await api.readNamespacedService({ namespace: ns, name: 'a' }),
    );
    const cleared = await api.readNamespacedService({ namespace: ns, name: 'a' });
    expect(cleared.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBeUndefined();
    expect(await (await newCloud()).loadBalancer().getLoadBalancer('kubernetes', cleared)).toBeUndefined();
    expect((await restarted.ensureLoadBalancer('kubernetes', d, [])).ingress?.[0]?.ip).toBe('127.0.2.10');

    // Leave the pool free for the other tests (their providers rebuild from every namespace).
    for (const name of ['b', 'c', 'd']) {
      await restarted.ensureLoadBalancerDeleted('kubernetes', await api.readNamespacedService({ namespace: ns, name }));
    }
  });

  it('writes through a stale copy of the Service by re-reading it on conflict', async () => {
    const ns = await namespace('conflict');
    const lb = (await newCloud()).loadBalancer();
    const stale = await createService(ns, 'web');
    await api.patchNamespacedService(
      { namespace: ns, name: 'web', body: { metadata: { labels: { touched: 'yes' } } } },
      patchOptions('merge'),
    );
    const fresh = await api.readNamespacedService({ namespace: ns, name: 'web' });
    expect(fresh.metadata?.resourceVersion).not.toBe(stale.metadata?.resourceVersion);
    const status = await lb.ensureLoadBalancer('kubernetes', stale, []);
    const stored = await api.readNamespacedService({ namespace: ns, name: 'web' });
    expect(stored.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBe(status.ingress?.[0]?.ip);
    expect(stored.metadata?.labels?.touched).toBe('yes');
    await lb.ensureLoadBalancerDeleted('kubernetes', stored);
  });

  it('never writes to a Service deleted and re-created under the same name', async () => {
    const ns = await namespace('recreate');
    const lb = (await newCloud()).loadBalancer();
    const old = await createService(ns, 'web');
    await api.deleteNamespacedService({ namespace: ns, name: 'web' });
    await createService(ns, 'web');
    await expect(lb.ensureLoadBalancer('kubernetes', old, [])).rejects.toThrow(/was deleted or re-created/);
    const current = await api.readNamespacedService({ namespace: ns, name: 'web' });
    expect(current.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBeUndefined();
  });

  it('records a Warning Event for an invalid annotation', async () => {
    const ns = await namespace('events');
    const lb = (await newCloud()).loadBalancer();
    const svc = await createService(ns, 'bad', {}, { [ANNOTATION_POOL]: 'missing' });
    await expect(lb.ensureLoadBalancer('kubernetes', svc, [])).rejects.toThrow('pool "missing" does not exist');
    const event = await eventuallyValue(async () => {
      const list = await api.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=bad' });
      return list.items[0];
    }, 'the Warning Event');
    expect(event).toMatchObject({
      type: 'Warning',
      reason: EVENT_REASONS.invalidAnnotation,
      source: { component: 'local-cloud-provider' },
      involvedObject: { kind: 'Service', name: 'bad', namespace: ns, uid: svc.metadata?.uid },
    });
    expect(event.message).toContain('local.ccm-kit.io/pool: pool "missing" does not exist');
    const stored = await api.readNamespacedService({ namespace: ns, name: 'bad' });
    expect(stored.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS]).toBeUndefined();
  });
});

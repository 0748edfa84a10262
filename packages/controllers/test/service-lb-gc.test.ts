/**
 * service-lb-gc-controller, one pass at a time over FakeCloud with a fake clock: every never-delete rule, the
 * two-pass grace rule, dry run against delete, and the descriptor's start-up errors.
 */
import type { CloudProvider, ControllerClientBuilder } from '@ccm-kit/cloud-provider';
import { metricsRegistry } from '@ccm-kit/runtime';
import { currentCloudLane } from '@ccm-kit/runtime/budget';
import {
  FakeCloud,
  loadBalancerService,
  MemoryInformer,
  memoryInformers,
  RecordingEventRecorder,
  RecordingLogger,
} from '@ccm-kit/testing';
import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { defaultCloudControllerConfig } from '../src/contract/controller-config.js';
import { type ControllerContext } from '../src/contract/controller-context.js';
import { type LoadBalancerGCConfig } from '../src/contract/load-balancer-gc-config.js';
import {
  type ListingLoadBalancer,
  LoadBalancerCollector,
  type LoadBalancerCollectorApi,
} from '../src/service-lb-gc/controller.js';
import { serviceLbGcController } from '../src/service-lb-gc/descriptor.js';
import { apiError } from './service-fixtures.js';

const CLUSTER = 'gc-cluster';
const GRACE = 60_000;

/** `cloud` with its LoadBalancer facet replaced by `lb`. */
function withLoadBalancer(cloud: CloudProvider, lb: ListingLoadBalancer): CloudProvider {
  return { providerName: () => cloud.providerName(), hasClusterID: () => true, loadBalancer: () => lb };
}

/** A client whose `readNamespacedService` answers `read`'s Service, or 404 NotFound for `undefined`. */
function readingClient(
  read: (namespace: string, name: string) => Promise<V1Service | undefined>,
): LoadBalancerCollectorApi {
  return {
    readNamespacedService: async ({ namespace, name }: { namespace: string; name: string }) => {
      const svc = await read(namespace, name);
      if (svc === undefined) throw apiError(404, 'NotFound', `services "${name}" not found`);
      return svc;
    },
  } as LoadBalancerCollectorApi;
}

interface Setup {
  cloud: FakeCloud;
  services: MemoryInformer<V1Service>;
  recorder: RecordingEventRecorder;
  /** The collector's log lines (`I <msg> {fields}`). */
  readonly logs: string[];
  clock: { now: number };
  /** What the API server answers to a read right before a delete (default: the informer's object). */
  live: { read?: (ns: string, name: string) => Promise<V1Service | undefined> };
  collector: LoadBalancerCollector;
  pass: () => ReturnType<LoadBalancerCollector['pass']>;
}

function setup(
  opts: {
    mode?: LoadBalancerGCConfig['mode'];
    loadBalancerClass?: string;
    lb?: (c: FakeCloud) => ListingLoadBalancer;
  } = {},
): Setup {
  const cloud = new FakeCloud({ externalIP: '1.2.3.4' });
  const services = new MemoryInformer<V1Service>();
  const recorder = new RecordingEventRecorder();
  const logger = new RecordingLogger({ verbosity: 0 });
  const clock = { now: 1_000_000 };
  const live: Setup['live'] = {};
  const signal = new AbortController().signal;
  const lb = opts.lb?.(cloud);
  const collector = new LoadBalancerCollector({
    cloud: lb ? withLoadBalancer(cloud, lb) : cloud,
    client: readingClient((ns, name) =>
      live.read ? live.read(ns, name) : Promise.resolve(services.lister.get(`${ns}/${name}`)),
    ),
    informers: { services: () => services },
    recorder,
    logger,
    config: {
      clusterName: CLUSTER,
      loadBalancerClass: opts.loadBalancerClass,
      loadBalancerGC: { mode: opts.mode ?? 'delete', gracePeriodMs: GRACE, periodMs: 1000 },
    },
    now: () => clock.now,
  });
  return {
    cloud,
    services,
    recorder,
    get logs() {
      return logger.lines;
    },
    clock,
    live,
    collector,
    pass: () => collector.pass(signal),
  };
}

/** A LoadBalancer Service in the informer with a balancer in the cloud. */
async function served(s: Setup, name: string, extra: Partial<V1Service> = {}): Promise<V1Service> {
  const svc = loadBalancerService(name, {
    ...(extra.spec ? { spec: extra.spec } : {}),
    ...(extra.metadata ? { metadata: extra.metadata } : {}),
  });
  s.services.set(svc);
  await s.cloud.ensureLoadBalancer(CLUSTER, svc, []);
  return svc;
}

const balancerOf = (s: Setup, svc: V1Service) => s.cloud.getLoadBalancerName(CLUSTER, svc);
const deletes = (s: Setup) => s.cloud.callCount('ensureLoadBalancerDeleted');

async function gaugeValue(state: string): Promise<number | undefined> {
  const m = await metricsRegistry.getSingleMetric('service_lb_gc_orphaned_load_balancers')?.get();
  return m?.values.find((v) => v.labels.state === state)?.value;
}

describe('the two-pass grace rule', () => {
  it('deletes a balancer whose Service is gone only on a pass at least the grace period after the first sighting', async () => {
    const s = setup();
    const keep = await served(s, 'keep');
    const gone = await served(s, 'gone');
    s.services.items.delete('default/gone');

    const first = await s.pass();
    expect(first.complete).toBe(true);
    expect(first.orphaned['service-gone']).toEqual([balancerOf(s, gone)]);
    expect(first.deleted).toEqual([]);
    expect(await gaugeValue('service-gone')).toBe(1);

    s.clock.now += GRACE - 1;
    expect((await s.pass()).deleted).toEqual([]);
    expect(deletes(s)).toBe(0);

    s.clock.now += 1;
    const due = await s.pass();
    expect(due.deleted).toEqual([balancerOf(s, gone)]);
    expect([...s.cloud.balancers.keys()]).toEqual([balancerOf(s, keep)]);
    // The Service handed to the provider is rebuilt from the record.
    expect(s.cloud.ensureCalls).toHaveLength(2);
    expect(
      s.cloud.callLog
        .entries()
        .filter((e) => e.method === 'ensureLoadBalancerDeleted')
        .map((e) => e.subject),
    ).toEqual(['default/gone']);
    expect(s.recorder.lines).toEqual([
      expect.stringMatching(
        /^Normal DeletedOrphanedLoadBalancer Deleted orphaned load balancer a.* no Service with UID uid-default-gone for 60 s$/,
      ),
    ]);
    expect(s.recorder.events[0]?.object).toMatchObject({
      kind: 'Service',
      namespace: 'default',
      name: 'gone',
      uid: 'uid-default-gone',
    });
    expect(
      s.logs.some((l) => l.startsWith('I Deleted orphaned load balancer') && l.includes('"service":"default/gone"')),
    ).toBe(true);
    const deleted = await metricsRegistry.getSingleMetric('service_lb_gc_deleted_load_balancers_total')?.get();
    expect(deleted?.values[0]?.value).toBeGreaterThanOrEqual(1);
  });

  it('a Service back between the two passes starts the grace period over', async () => {
    const s = setup();
    const svc = await served(s, 'flaky');
    s.services.items.delete('default/flaky');
    await s.pass();
    s.clock.now += GRACE / 2;
    s.services.set(svc);
    expect((await s.pass()).orphaned['service-gone']).toEqual([]);
    s.clock.now += GRACE / 2;
    s.services.items.delete('default/flaky');
    expect((await s.pass()).deleted).toEqual([]);
    s.clock.now += GRACE - 1;
    expect((await s.pass()).deleted).toEqual([]);
    s.clock.now += 1;
    expect((await s.pass()).deleted).toEqual([balancerOf(s, svc)]);
  });

  it('takes two passes even with a grace period of 0', async () => {
    const cloud = new FakeCloud();
    const services = new MemoryInformer<V1Service>();
    const collector = new LoadBalancerCollector({
      cloud,
      client: readingClient(async () => undefined),
      informers: { services: () => services },
      recorder: new RecordingEventRecorder(),
      logger: new RecordingLogger({ verbosity: 0 }),
      config: { clusterName: CLUSTER, loadBalancerGC: { mode: 'delete', gracePeriodMs: 0, periodMs: 1000 } },
      now: () => 5,
    });
    await cloud.ensureLoadBalancer(CLUSTER, loadBalancerService('x'), []);
    const signal = new AbortController().signal;
    expect((await collector.pass(signal)).deleted).toEqual([]);
    expect((await collector.pass(signal)).deleted).toHaveLength(1);
  });

  it('a Service re-created under the same name (another UID) counts as gone', async () => {
    const s = setup();
    const old = await served(s, 'reborn');
    s.services.set(loadBalancerService('reborn', { uid: 'uid-new' }));
    await s.pass();
    s.clock.now += GRACE;
    expect((await s.pass()).deleted).toEqual([balancerOf(s, old)]);
  });
});

describe('dry run', () => {
  it('reports a due orphan once (log line, Warning Event, gauge) and never deletes it', async () => {
    const s = setup({ mode: 'dry-run' });
    const gone = await served(s, 'gone');
    s.services.items.delete('default/gone');
    await s.pass();
    s.clock.now += GRACE;
    const due = await s.pass();
    expect(due.wouldDelete).toEqual([balancerOf(s, gone)]);
    s.clock.now += GRACE;
    expect((await s.pass()).wouldDelete).toEqual([balancerOf(s, gone)]);
    expect(deletes(s)).toBe(0);
    expect(s.cloud.balancers.size).toBe(1);
    expect(s.recorder.lines).toEqual([
      expect.stringMatching(
        /^Warning OrphanedLoadBalancer Load balancer a\S+ has had no Service with UID uid-default-gone for 60 s; --lb-gc-mode=delete would delete it$/,
      ),
    ]);
    expect(s.logs.filter((l) => l.includes('dry run, not deleting'))).toHaveLength(1);
    expect(await gaugeValue('service-gone')).toBe(1);
  });
});

describe('never deletes', () => {
  it('while the informer is not synced', async () => {
    const s = setup();
    await served(s, 'gone');
    s.services.items.delete('default/gone');
    await s.pass();
    s.services.synced = false;
    s.clock.now += GRACE;
    const r = await s.pass();
    expect(r).toMatchObject({ complete: false, reason: 'informer not synced' });
    expect(deletes(s)).toBe(0);
    expect(s.cloud.callCount('listLoadBalancers')).toBe(1);
  });

  it('when the listing fails, and keeps what earlier passes saw', async () => {
    const s = setup();
    await served(s, 'gone');
    s.services.items.delete('default/gone');
    await s.pass();
    s.clock.now += GRACE;
    s.cloud.faults.injectError('listLoadBalancers', { times: 1 });
    const failed = await s.pass();
    expect(failed.complete).toBe(false);
    expect(failed.reason).toMatch(/^listing failed: page 1 of the listing failed/);
    expect(deletes(s)).toBe(0);
    expect(s.logs.some((l) => l.startsWith('E Listing load balancers failed; nothing is deleted on this pass'))).toBe(
      true,
    );
    expect((await s.pass()).deleted).toHaveLength(1);
  });

  it('when the listing is partial (a later page fails, or a page token repeats)', async () => {
    const s = setup();
    s.cloud.balancerListPageSize = 1;
    for (const n of ['a', 'b', 'c']) await served(s, n);
    for (const n of ['a', 'b', 'c']) s.services.items.delete(`default/${n}`);
    await s.pass();
    s.clock.now += GRACE;
    s.cloud.faults.injectError('listLoadBalancers', { everyNth: 2, times: 1 });
    const partial = await s.pass();
    expect(partial.complete).toBe(false);
    expect(partial.reason).toMatch(/page 2 of the listing failed/);
    expect(deletes(s)).toBe(0);

    const looping = setup({
      lb: (c) =>
        Object.assign(Object.create(c) as FakeCloud, {
          listLoadBalancers: async () => ({ loadBalancers: [], nextPageToken: 'again' }),
        }),
    });
    expect((await looping.pass()).reason).toMatch(/page token "again" was returned twice/);
  });

  it('a balancer whose record cannot be parsed: skipped, and logged with its name once, not on every pass', async () => {
    const s = setup();
    const bare = { name: 'bare-lb', region: '', loadBalancerIP: '', ports: [], hosts: [] };
    s.cloud.balancers.set('bare-lb', bare);
    const skipped = () =>
      s.logs.filter((l) => l.startsWith('W Skipping load balancer') && l.includes('"loadBalancer":"bare-lb"'));
    const passLines = () => s.logs.filter((l) => l.startsWith('I Orphaned load-balancer pass'));
    await s.pass();
    s.clock.now += GRACE;
    const r = await s.pass();
    await s.pass();
    expect(r.malformed).toEqual(['bare-lb']);
    expect(r.orphaned['service-gone']).toEqual([]);
    expect(deletes(s)).toBe(0);
    expect(s.cloud.balancers.has('bare-lb')).toBe(true);
    expect(skipped()).toHaveLength(1);
    expect(passLines()).toHaveLength(1);
    // Gone from the listing, then back malformed: logged again.
    s.cloud.balancers.delete('bare-lb');
    await s.pass();
    s.cloud.balancers.set('bare-lb', bare);
    expect((await s.pass()).malformed).toEqual(['bare-lb']);
    expect(skipped()).toHaveLength(2);
  });

  it('a record with an empty UID, namespace or name counts as malformed, not as a Service gone', async () => {
    const s = setup({
      lb: (c) =>
        Object.assign(Object.create(c) as FakeCloud, {
          listLoadBalancers: async () => ({
            loadBalancers: [
              { name: 'no-uid', service: { namespace: 'default', name: 'x', uid: '' } },
              { name: 'no-name', service: { namespace: 'default', uid: 'u' } as never },
            ],
          }),
        }),
    });
    await s.pass();
    s.clock.now += GRACE;
    const r = await s.pass();
    expect(r.malformed).toEqual(['no-uid', 'no-name']);
    expect(r.orphaned['service-gone']).toEqual([]);
    expect(deletes(s)).toBe(0);
    expect(s.logs.some((l) => l.includes('"problem":"the recorded Service has no uid"'))).toBe(true);
    expect(s.logs.some((l) => l.includes('"problem":"the recorded Service has no name"'))).toBe(true);
  });

  it('while a Service with that UID exists in any state: being deleted with the finalizer, or no longer of type LoadBalancer', async () => {
    const s = setup();
    const deleting = await served(s, 'deleting', {
      metadata: {
        name: 'deleting',
        namespace: 'default',
        uid: 'uid-deleting',
        deletionTimestamp: new Date(),
        finalizers: ['service.kubernetes.io/load-balancer-cleanup'],
      },
    });
    const switched = await served(s, 'switched');
    s.services.set({ ...switched, spec: { ...switched.spec, type: 'ClusterIP' } });
    await s.pass();
    s.clock.now += GRACE;
    const r = await s.pass();
    expect(r.orphaned['service-gone']).toEqual([]);
    expect(r.orphaned['not-wanted']).toEqual([balancerOf(s, switched)]);
    expect(r.kept).toEqual([balancerOf(s, switched)]);
    expect(deletes(s)).toBe(0);
    expect(s.cloud.balancers.has(balancerOf(s, deleting))).toBe(true);
    expect(s.recorder.lines).toEqual([
      expect.stringMatching(/^Warning OrphanedLoadBalancerKept Load balancer a\S+ is no longer wanted by this Service/),
    ]);
    expect(s.recorder.events[0]?.object).toMatchObject({ name: 'switched', uid: 'uid-default-switched' });
    s.clock.now += GRACE;
    await s.pass();
    expect(s.recorder.lines).toHaveLength(1);
    expect(await gaugeValue('not-wanted')).toBe(1);
  });

  it('a Service of another class with the loadBalancerClass option: not wanted, kept (the service controller predicate)', async () => {
    const s = setup({ loadBalancerClass: 'example.com/ours' });
    const ours = await served(s, 'ours', { spec: { type: 'LoadBalancer', loadBalancerClass: 'example.com/ours' } });
    const moved = await served(s, 'moved', { spec: { type: 'LoadBalancer', loadBalancerClass: 'example.com/other' } });
    await s.pass();
    s.clock.now += GRACE;
    const r = await s.pass();
    expect(r.orphaned['not-wanted']).toEqual([balancerOf(s, moved)]);
    expect(r.orphaned['not-wanted']).not.toContain(balancerOf(s, ours));
    expect(deletes(s)).toBe(0);
  });

  it('when the API server still has the Service (the cache was behind) or cannot be read', async () => {
    const s = setup();
    const svc = await served(s, 'lagging');
    s.services.items.delete('default/lagging');
    await s.pass();
    s.clock.now += GRACE;
    s.live.read = async () => svc;
    expect((await s.pass()).kept).toEqual([balancerOf(s, svc)]);
    s.live.read = async () => {
      throw new Error('connection refused');
    };
    expect((await s.pass()).kept).toEqual([balancerOf(s, svc)]);
    expect(deletes(s)).toBe(0);
    expect(s.logs.some((l) => l.startsWith('E Cannot read the Service before deleting'))).toBe(true);
    s.live.read = async () => undefined;
    expect((await s.pass()).deleted).toEqual([balancerOf(s, svc)]);
  });
});

describe('a failed delete', () => {
  it('records a Warning Event and is tried again by the next pass', async () => {
    const s = setup();
    const svc = await served(s, 'stuck');
    s.services.items.delete('default/stuck');
    await s.pass();
    s.clock.now += GRACE;
    s.cloud.faults.injectError('ensureLoadBalancerDeleted', { times: 1, error: new Error('quota') });
    const r = await s.pass();
    expect(r.kept).toEqual([balancerOf(s, svc)]);
    expect(s.recorder.lines).toEqual([
      expect.stringMatching(
        /^Warning DeleteOrphanedLoadBalancerFailed Deleting orphaned load balancer a\S+ failed: quota$/,
      ),
    ]);
    expect((await s.pass()).deleted).toEqual([balancerOf(s, svc)]);
  });
});

describe('serviceLbGcController descriptor', () => {
  function context(cloud: CloudProvider, loadBalancerGC?: LoadBalancerGCConfig): ControllerContext {
    return {
      cloud,
      clients: {
        config: () => {
          throw new Error('unused');
        },
        client: (_name: string, Api: new (...args: never[]) => unknown) => Object.create(Api.prototype),
      } as ControllerClientBuilder,
      informers: memoryInformers(),
      config: { ...defaultCloudControllerConfig, ...(loadBalancerGC ? { loadBalancerGC } : {}) },
      signal: AbortSignal.abort(),
      logger: new RecordingLogger({ verbosity: 0 }),
    };
  }

  it('is off by default, with the service controller client', () => {
    expect(serviceLbGcController).toMatchObject({
      name: 'service-lb-gc-controller',
      clientName: 'service-controller',
      disabledByDefault: true,
    });
  });

  it('refuses to start for a provider without the listing, naming --controllers and the fix', async () => {
    const cloud = new FakeCloud({ provider: 'nolist' });
    const withoutListing = Object.assign(Object.create(cloud) as FakeCloud, { listLoadBalancers: undefined });
    cloud.loadBalancer = () => withoutListing;
    await expect(serviceLbGcController.init(context(cloud))).rejects.toThrow(
      '--controllers enables service-lb-gc-controller, but provider "nolist" does not implement LoadBalancer.listLoadBalancers; implement it (docs/interfaces/load-balancer.md) or remove service-lb-gc-controller from --controllers',
    );
    await expect(serviceLbGcController.init(context(new FakeCloud({ disableLoadBalancers: true })))).rejects.toThrow(
      /has no LoadBalancer facet; remove service-lb-gc-controller from --controllers/,
    );
  });

  it('refuses a negative grace period and an unknown mode', async () => {
    const cloud = new FakeCloud();
    await expect(
      serviceLbGcController.init(context(cloud, { mode: 'delete', gracePeriodMs: -1, periodMs: 1000 })),
    ).rejects.toThrow('--lb-gc-grace-period must not be negative (for example 10m), got -1 ms');
    await expect(
      serviceLbGcController.init(context(cloud, { mode: 'purge' as never, gracePeriodMs: 0, periodMs: 1000 })),
    ).rejects.toThrow('--lb-gc-mode must be one of dry-run, delete, got "purge"');
  });

  it('charges its cloud calls to the periodic lane of the cloud budget', async () => {
    const cloud = new FakeCloud();
    const lanes: (string | undefined)[] = [];
    const ac = new AbortController();
    const listing = Object.assign(Object.create(cloud) as FakeCloud, {
      listLoadBalancers: async () => {
        lanes.push(currentCloudLane());
        ac.abort();
        return { loadBalancers: [] };
      },
    });
    cloud.loadBalancer = () => listing;
    const result = await serviceLbGcController.init({ ...context(cloud), signal: ac.signal });
    await result.done;
    expect(lanes).toEqual(['periodic']);
  });

  it('starts for a provider with the listing and stops with its signal', async () => {
    const result = await serviceLbGcController.init(context(new FakeCloud()));
    expect(result.started).toBe(true);
    await result.done;
  });
});

import { ApiException } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type DeletedFinalStateUnknownLike,
  isTombstone,
  metricsRegistry,
  SharedInformer,
  type SharedInformerOptions,
  WatchInactivityError,
  waitForCacheSync,
} from './informer-exports.js';
import { FakeListerWatcher, listItem, nodeObj, until } from './informer-fake-lw.js';

type Obj = {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; managedFields?: unknown };
};

function recorder() {
  const events: string[] = [];
  const tombstones: DeletedFinalStateUnknownLike[] = [];
  return {
    events,
    tombstones,
    handler: {
      onAdd: (o: Obj, initial: boolean) =>
        events.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}${initial ? ' initial' : ''}`),
      onUpdate: (a: Obj, b: Obj) =>
        events.push(`update ${a.metadata.name}@${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`),
      onDelete: (o: Obj | DeletedFinalStateUnknownLike) => {
        if (isTombstone(o)) {
          tombstones.push(o);
          events.push(`delete ${o.key} tombstone`);
        } else events.push(`delete ${(o as Obj).metadata.name}@${(o as Obj).metadata.resourceVersion}`);
      },
    },
  };
}

const fast = { initialMs: 5, maxMs: 20 };
const aborts: AbortController[] = [];
afterEach(() => {
  for (const a of aborts.splice(0)) a.abort();
});

function setup(opts: Partial<SharedInformerOptions<Obj>> = {}) {
  const lw = new FakeListerWatcher();
  const inf = new SharedInformer<Obj>({ name: '/api/v1/nodes', lw, backoff: fast, ...opts });
  const ac = new AbortController();
  aborts.push(ac);
  const rec = recorder();
  inf.addEventHandler(rec.handler);
  return { lw, inf, ac, rec };
}

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const m = await metricsRegistry.getSingleMetric(name)?.get();
  return m?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
}

describe('SharedInformer', () => {
  it('lists in pages of 500, delivers initial adds, syncs, then watches from the list RV with bookmarks timeout 5-10 min', async () => {
    const { lw, inf, ac, rec } = setup();
    lw.listImpl = async (req) =>
      req.continue
        ? { items: [listItem('b', '11')], resourceVersion: '20', apiVersion: 'v1', kind: 'NodeList' }
        : {
            items: [listItem('a', '10')],
            resourceVersion: '20',
            continue: 'tok',
            apiVersion: 'v1',
            kind: 'NodeList',
          };
    expect(inf.hasSynced()).toBe(false);
    void inf.run(ac.signal);
    const w = await lw.nextWatch();
    expect(lw.lists.map((l) => [l.limit, l.continue])).toEqual([
      [500, undefined],
      [500, 'tok'],
    ]);
    expect(inf.hasSynced()).toBe(true);
    expect(rec.events).toEqual(['add a@10 initial', 'add b@11 initial']);
    expect(w.req.resourceVersion).toBe('20');
    expect(w.req.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(w.req.timeoutSeconds).toBeLessThan(600);
    // list items got apiVersion/kind; managedFields stripped by default
    expect(inf.lister.get('a')).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'a', resourceVersion: '10' },
      spec: {},
    });
  });

  it('applies watch events with old objects; DELETED gives the final state; bookmarks move the RV', async () => {
    const { lw, inf, ac, rec } = setup();
    lw.listImpl = async () => ({
      items: [listItem('a', '10')],
      resourceVersion: '10',
      kind: 'NodeList',
      apiVersion: 'v1',
    });
    void inf.run(ac.signal);
    const w = await lw.nextWatch();
    w.send('ADDED', nodeObj('b', '11'));
    w.send('MODIFIED', nodeObj('a', '12'));
    w.send('ADDED', nodeObj('a', '13')); // ADDED for a cached key is an update
    w.send('MODIFIED', nodeObj('c', '14')); // MODIFIED for an unknown key is an add
    w.send('DELETED', nodeObj('b', '15'));
    w.send('BOOKMARK', { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: '99' } });
    await until(() => inf.lastSyncResourceVersion() === '99');
    expect(rec.events.slice(1)).toEqual(['add b@11', 'update a@10->12', 'update a@12->13', 'add c@14', 'delete b@15']);
    expect(inf.lister.keys().sort()).toEqual(['a', 'c']);
    expect(inf.lister.get('a')?.metadata.managedFields).toBeUndefined();
  });

  it('relists on a 410 ERROR event and turns vanished objects into tombstones', async () => {
    const { lw, inf, ac, rec } = setup();
    let round = 0;
    lw.listImpl = async () =>
      round++ === 0
        ? { items: [listItem('a', '1'), listItem('b', '2'), listItem('c', '3')], resourceVersion: '3' }
        : { items: [listItem('a', '1'), listItem('c', '7'), listItem('d', '8')], resourceVersion: '9' };
    void inf.run(ac.signal);
    const w1 = await lw.nextWatch();
    w1.send('ERROR', {
      kind: 'Status',
      code: 410,
      reason: 'Expired',
      message: 'too old resource version: 3 (5)',
    });
    const w2 = await lw.nextWatch(2);
    expect(w2.req.resourceVersion).toBe('9');
    expect(lw.lists).toHaveLength(2);
    expect(rec.events.slice(3)).toEqual(['update a@1->1', 'update c@3->7', 'add d@8', 'delete b tombstone']);
    expect(rec.tombstones[0]?.obj).toMatchObject({ metadata: { name: 'b', resourceVersion: '2' } });
    expect(inf.lister.keys().sort()).toEqual(['a', 'c', 'd']);
  });

  it('relists when the watch request itself fails with HTTP 410', async () => {
    const { lw, inf, ac } = setup();
    void inf.run(ac.signal);
    const w1 = await lw.nextWatch();
    w1.fail(new ApiException(410, 'Gone', JSON.stringify({ kind: 'Status', code: 410, reason: 'Gone' }), {}));
    await lw.nextWatch(2);
    expect(lw.lists).toHaveLength(2);
  });

  it('after other errors re-watches from the last RV without relisting, with backoff', async () => {
    const { lw, inf, ac } = setup();
    lw.listImpl = async () => ({ items: [], resourceVersion: '5' });
    void inf.run(ac.signal);
    const w1 = await lw.nextWatch();
    w1.send('ADDED', nodeObj('a', '6'));
    w1.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const w2 = await lw.nextWatch(2);
    expect(w2.req.resourceVersion).toBe('6');
    w2.fail(new WatchInactivityError(100));
    const w3 = await lw.nextWatch(3);
    expect(w3.req.resourceVersion).toBe('6');
    w3.send('ERROR', { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd down' });
    const w4 = await lw.nextWatch(4);
    expect(w4.req.resourceVersion).toBe('6');
    expect(lw.lists).toHaveLength(1);
    expect(
      await metric('ccm_kit_informer_watch_errors_total', {
        resource: '/api/v1/nodes',
        reason: 'inactivity',
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('re-opens at once after a normal server close, but backs off after an immediate empty close', async () => {
    const { lw, inf, ac } = setup({ backoff: { initialMs: 300, maxMs: 300, jitter: 0 } });
    void inf.run(ac.signal);
    const w1 = await lw.nextWatch();
    w1.send('BOOKMARK', { metadata: { resourceVersion: '2' } });
    await until(() => inf.lastSyncResourceVersion() === '2');
    let t0 = performance.now();
    w1.end();
    await lw.nextWatch(2);
    expect(performance.now() - t0).toBeLessThan(200);
    t0 = performance.now();
    lw.watches[1]?.end(); // closed within 1 s with nothing received
    await lw.nextWatch(3);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(280);
  });

  it('relists at once after 410 instead of backing off', async () => {
    const { lw, inf, ac } = setup({ backoff: { initialMs: 1000, maxMs: 1000, jitter: 0 } });
    void inf.run(ac.signal);
    const w1 = await lw.nextWatch();
    const t0 = performance.now();
    w1.send('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' });
    await lw.nextWatch(2);
    expect(lw.lists).toHaveLength(2);
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it('after losing the server, retries as soon as it answers again (waitForServer), and the backoff starts over', async () => {
    const { lw, inf, ac } = setup({ backoff: { initialMs: 10_000, maxMs: 10_000, jitter: 0 } });
    const waits: number[] = [];
    let wake: (() => void) | undefined;
    lw.waitForServer = (ms, signal) => {
      waits.push(ms);
      return new Promise<void>((resolve) => {
        wake = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    };
    void inf.run(ac.signal);
    const w1 = await lw.nextWatch();
    w1.fail(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } })); // no HTTP status
    await until(() => waits.length === 1);
    expect(lw.watches).toHaveLength(1);
    wake?.(); // the server answered
    const w2 = await lw.nextWatch(2);
    // A watch that delivered events and closed normally re-opens at once, without waiting.
    w2.send('ADDED', nodeObj('a', '6'));
    w2.end();
    const w3 = await lw.nextWatch(3);
    expect(waits).toEqual([10_000]);
    expect(w3.req.resourceVersion).toBe('6');
  });

  it('retries a failure the server answered with the delay the list-watch gives (short right after an outage)', async () => {
    const { lw, inf, ac } = setup({ backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 } });
    const asked: number[] = [];
    lw.retryDelayMs = (ms) => {
      asked.push(ms);
      return 5; // the server has just come back: retry at once
    };
    void inf.run(ac.signal);
    const w1 = await lw.nextWatch();
    // A restarted kube-apiserver whose authorizer has not synced yet refuses the watch.
    w1.fail(new ApiException(403, 'Forbidden', JSON.stringify({ code: 403, reason: 'Forbidden' }), {}));
    const w2 = await lw.nextWatch(2);
    expect(asked).toEqual([60_000]);
    expect(w2.req.resourceVersion).toBe(w1.req.resourceVersion);
  });

  it('retries a failing LIST forever with backoff until it succeeds', async () => {
    const { lw, inf, ac } = setup();
    let n = 0;
    lw.listImpl = async () => {
      if (++n < 4) throw new Error('connection refused');
      return { items: [listItem('a', '1')], resourceVersion: '1' };
    };
    void inf.run(ac.signal);
    expect(await inf.whenSynced(ac.signal)).toBe(true);
    expect(n).toBe(4);
  });

  it('restarts an expired continue token as one unpaged list', async () => {
    const { lw, inf, ac } = setup();
    lw.listImpl = async (req) => {
      if (req.continue) throw new ApiException(410, 'Expired', JSON.stringify({ code: 410, reason: 'Expired' }), {});
      if (req.limit) return { items: [listItem('a', '1')], resourceVersion: '3', continue: 'old' };
      return { items: [listItem('a', '1'), listItem('b', '2')], resourceVersion: '4' };
    };
    void inf.run(ac.signal);
    const w = await lw.nextWatch();
    expect(lw.lists.map((l) => [l.limit, l.continue])).toEqual([
      [500, undefined],
      [500, 'old'],
      [undefined, undefined],
    ]);
    expect(inf.lister.keys().sort()).toEqual(['a', 'b']);
    expect(w.req.resourceVersion).toBe('4');
  });

  it('isolates throwing and rejecting handlers: others still run, errors are counted, nothing unhandled', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const { lw, inf, ac, rec } = setup();
      const before = await metric('ccm_kit_informer_handler_errors_total', {
        resource: '/api/v1/nodes',
        event: 'add',
      });
      inf.addEventHandler({
        onAdd: () => {
          throw new Error('boom');
        },
      });
      inf.addEventHandler({ onAdd: async () => Promise.reject(new Error('async boom')) });
      void inf.run(ac.signal);
      const w = await lw.nextWatch();
      w.send('ADDED', nodeObj('x', '2'));
      await until(() => rec.events.includes('add x@2'));
      await new Promise((r) => setTimeout(r, 20));
      expect(await metric('ccm_kit_informer_handler_errors_total', { resource: '/api/v1/nodes', event: 'add' })).toBe(
        before + 2,
      );
      expect(unhandled).not.toHaveBeenCalled();
      expect(lw.watches).toHaveLength(1); // the watch survived
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('replays the cache as initial adds to a handler added after sync; removal stops delivery', async () => {
    const { lw, inf, ac } = setup();
    lw.listImpl = async () => ({ items: [listItem('a', '1'), listItem('b', '2')], resourceVersion: '2' });
    void inf.run(ac.signal);
    const w = await lw.nextWatch();
    const late = recorder();
    const remove = inf.addEventHandler(late.handler);
    expect(late.events).toEqual(['add a@1 initial', 'add b@2 initial']);
    remove();
    w.send('ADDED', nodeObj('c', '3'));
    await until(() => inf.lister.get('c') !== undefined);
    expect(late.events).toHaveLength(2);
  });

  it('applies a custom transform and indexes by namespace', async () => {
    const { lw, inf, ac } = setup({
      transform: (o) => {
        (o.metadata as Record<string, unknown>).transformed = true;
        return o as unknown as Obj;
      },
    });
    lw.listImpl = async () => ({
      items: [listItem('a', '1', 'ns1'), listItem('b', '2', 'ns2'), listItem('c', '3', 'ns1')],
      resourceVersion: '3',
    });
    void inf.run(ac.signal);
    await inf.whenSynced();
    expect(inf.lister.get('ns1/a')?.metadata).toMatchObject({
      transformed: true,
      managedFields: [{ manager: 'm' }],
    });
    expect(
      inf.lister
        .listNamespace('ns1')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c']);
  });

  it('normalises typed list results (Dates) to the watch shape (strings)', async () => {
    const { lw, inf, ac } = setup();
    lw.listImpl = async () => ({
      items: [
        {
          metadata: { name: 'a', resourceVersion: '1', creationTimestamp: new Date('2026-01-02T03:04:05Z') },
        },
      ],
      resourceVersion: '1',
      apiVersion: 'v1',
      kind: 'NodeList',
    });
    void inf.run(ac.signal);
    await inf.whenSynced();
    expect(inf.lister.get('a')).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'a', resourceVersion: '1', creationTimestamp: '2026-01-02T03:04:05Z' },
    });
  });

  it('re-delivers every cached object as update(obj, obj) each resync period', async () => {
    const { lw, inf, ac, rec } = setup({ resyncPeriodMs: 40 });
    lw.listImpl = async () => ({ items: [listItem('a', '1')], resourceVersion: '1' });
    void inf.run(ac.signal);
    await until(() => rec.events.filter((e) => e === 'update a@1->1').length >= 2);
  });

  it('run resolves when the signal aborts, closing the watch; waitForCacheSync reports false on abort', async () => {
    const { lw, inf, ac } = setup();
    lw.listImpl = () => new Promise(() => undefined); // never lists
    const done = inf.run(ac.signal);
    const sync = waitForCacheSync(ac.signal, inf);
    setTimeout(() => ac.abort(), 30);
    expect(await sync).toBe(false);
    await done;

    const s2 = setup();
    const running = s2.inf.run(s2.ac.signal);
    expect(s2.inf.run(s2.ac.signal)).toBe(running);
    expect(await waitForCacheSync(s2.ac.signal, s2.inf)).toBe(true);
    const w = await s2.lw.nextWatch(1);
    s2.ac.abort();
    await running;
    expect(w.closed).toBe(true);
  });

  it('stops promptly when aborted right after the list, before the watch opens', async () => {
    const { lw, inf, ac } = setup();
    const done = inf.run(ac.signal);
    await inf.whenSynced();
    ac.abort();
    const t0 = performance.now();
    await done;
    expect(performance.now() - t0).toBeLessThan(500);
    expect(lw.watches.every((w) => w.closed || w.req.signal.aborted)).toBe(true);
  });

  it('restartWatchFrom re-opens the watch from the given RV (test hook)', async () => {
    const { lw, inf, ac } = setup();
    void inf.run(ac.signal);
    await lw.nextWatch();
    inf.restartWatchFrom('1');
    const w2 = await lw.nextWatch(2);
    expect(w2.req.resourceVersion).toBe('1');
    expect(lw.lists).toHaveLength(1);
  });
});

import { metricsRegistry } from '@ccm-kit/runtime';
import { itemExponentialFailureRateLimiter, type RateLimiter, Workqueue } from '@ccm-kit/runtime/workqueue';
import { workqueueDurationBuckets } from '@ccm-kit/runtime/internal';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

let seq = 0;
const uniqueName = (p: string) => `${p}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

async function metricValue(metric: string, labels: Record<string, string>): Promise<number | undefined> {
  const m = metricsRegistry.getSingleMetric(metric.replace(/_(count|sum|bucket)$/, ''));
  if (!m) return undefined;
  const data = await m.get();
  const v = data.values.find((x) =>
    (x as { metricName?: string }).metricName === undefined || (x as { metricName?: string }).metricName === metric
      ? Object.entries(labels).every(([k, val]) => x.labels[k] === val)
      : false,
  );
  return v?.value;
}

/** A pending promise's state after the microtask queue has run. */
async function settled<T>(p: Promise<T>): Promise<{ done: boolean; value?: T }> {
  let state: { done: boolean; value?: T } = { done: false };
  void p.then((value) => {
    state = { done: true, value };
  });
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return state;
}

describe('Workqueue basics', () => {
  it('hands items out in FIFO order and counts queued items', async () => {
    const q = new Workqueue<string>();
    q.add('a');
    q.add('b');
    q.add('c');
    expect(q.len()).toBe(3);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe('c');
    expect(q.len()).toBe(0);
  });

  it('queues an item at most once while it waits', async () => {
    const q = new Workqueue<string>();
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('does not hand out an item that is processing; a re-add is processed again after done', async () => {
    const q = new Workqueue<string>();
    q.add('a');
    const a = await q.get();
    expect(a).toBe('a');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(0);
    const next = q.get();
    expect((await settled(next)).done).toBe(false);
    q.done('a');
    expect(await next).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('get waits for an add', async () => {
    const q = new Workqueue<number>();
    const p = q.get();
    expect((await settled(p)).done).toBe(false);
    q.add(7);
    expect(await p).toBe(7);
  });

  it('serves waiting getters in arrival order', async () => {
    const q = new Workqueue<string>();
    const p1 = q.get();
    const p2 = q.get();
    q.add('x');
    q.add('y');
    expect(await p1).toBe('x');
    expect(await p2).toBe('y');
  });

  it('get(signal) resolves undefined when the signal aborts and then takes nothing', async () => {
    const q = new Workqueue<string>();
    const ac = new AbortController();
    const p = q.get(ac.signal);
    ac.abort();
    expect(await p).toBeUndefined();
    q.add('a');
    expect(q.len()).toBe(1);
    expect(await q.get(AbortSignal.abort())).toBe('a');
  });

  it('done for an item that is not processing does nothing', async () => {
    const q = new Workqueue<string>();
    q.add('a');
    q.done('a');
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe('a');
    expect(q.len()).toBe(0);
  });

  it('rejects undefined and null items and a NaN delay', () => {
    const q = new Workqueue<string | undefined>();
    expect(() => q.add(undefined)).toThrow(TypeError);
    expect(() => q.addAfter('a', Number.NaN)).toThrow(/delayMs/);
  });

  it('compares object items by identity', async () => {
    const q = new Workqueue<{ k: string }>();
    const a = { k: 'a' };
    q.add(a);
    q.add({ k: 'a' });
    q.add(a);
    expect(q.len()).toBe(2);
  });
});

describe('Workqueue concurrency', () => {
  it('never processes a key in two workers at once and reprocesses keys added while processing', async () => {
    const q = new Workqueue<string>();
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
    const active = new Set<string>();
    const lastAdd = new Map<string, number>();
    const lastStart = new Map<string, number>();
    let clock = 0;
    let overlaps = 0;
    let processed = 0;
    let maxParallel = 0;
    const add = (k: string) => {
      lastAdd.set(k, ++clock);
      q.add(k);
    };
    const rnd = (() => {
      let s = 42;
      return () => {
        s = (s * 1103515245 + 12345) % 2 ** 31;
        return s / 2 ** 31;
      };
    })();
    const worker = async () => {
      for (;;) {
        const k = await q.get();
        if (k === undefined) return;
        if (active.has(k)) overlaps++;
        active.add(k);
        maxParallel = Math.max(maxParallel, active.size);
        lastStart.set(k, ++clock);
        processed++;
        await new Promise((r) => setTimeout(r, rnd() * 3));
        // Re-add other keys (and sometimes this one) while processing.
        if (processed < 400) {
          add(keys[Math.floor(rnd() * keys.length)] as string);
          if (rnd() < 0.3) add(k);
        }
        active.delete(k);
        q.done(k);
      }
    };
    for (const k of keys) add(k);
    const workers = Array.from({ length: 8 }, worker);
    // Wait until the queue is idle: nothing queued and nothing processing.
    await eventuallyValue(() => q.len() === 0 && active.size === 0 && processed >= 400, {
      timeoutMs: 10_000,
      intervalMs: 2,
    });
    await q.shutDownWithDrain();
    await Promise.all(workers);
    expect(overlaps).toBe(0);
    expect(maxParallel).toBeGreaterThan(1);
    expect(maxParallel).toBeLessThanOrEqual(8);
    for (const k of keys) {
      // Every add was followed by a processing start of that key.
      expect(lastStart.get(k)).toBeGreaterThan(lastAdd.get(k) as number);
    }
  });
});

describe('Workqueue shutdown', () => {
  it('ShutDown: pending gets resolve undefined, adds are ignored, queued items are still handed out', async () => {
    const q = new Workqueue<string>();
    const idle = q.get();
    q.shutDown();
    expect(await idle).toBeUndefined();
    expect(q.shuttingDown()).toBe(true);
    q.add('late');
    expect(q.len()).toBe(0);

    const q2 = new Workqueue<string>();
    q2.add('a');
    q2.add('b');
    q2.shutDown();
    expect(await q2.get()).toBe('a');
    expect(await q2.get()).toBe('b');
    expect(await q2.get()).toBeUndefined();
  });

  it('ShutDownWithDrain waits for items being processed', async () => {
    const q = new Workqueue<string>();
    q.add('a');
    q.add('b');
    const a = (await q.get()) as string;
    const b = (await q.get()) as string;
    const drained = q.shutDownWithDrain();
    expect((await settled(drained)).done).toBe(false);
    q.done(a);
    expect((await settled(drained)).done).toBe(false);
    q.done(b);
    expect((await settled(drained)).done).toBe(true);
  });

  it('ShutDownWithDrain resolves at once with nothing processing, and ShutDown cuts a drain short', async () => {
    const q = new Workqueue<string>();
    await q.shutDownWithDrain();
    const q2 = new Workqueue<string>();
    q2.add('a');
    await q2.get();
    const drained = q2.shutDownWithDrain();
    expect((await settled(drained)).done).toBe(false);
    q2.shutDown();
    expect((await settled(drained)).done).toBe(true);
  });

  it('a drain ends when nothing is processing (as upstream); a re-added item is still handed out', async () => {
    const q = new Workqueue<string>();
    q.add('a');
    q.add('b');
    const a = (await q.get()) as string;
    q.add('a');
    const drained = q.shutDownWithDrain();
    q.done(a);
    // 'a' (re-added while processing) and 'b' are queued, none is processing.
    expect((await settled(drained)).done).toBe(true);
    expect(await q.get()).toBe('b');
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBeUndefined();
  });
});

describe('Workqueue delays', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  async function collect(q: Workqueue<string>, n: number, out: Array<[string, number]>, t0: number) {
    for (let i = 0; i < n; i++) {
      const item = (await q.get()) as string;
      out.push([item, Date.now() - t0]);
      q.done(item);
    }
  }

  it('adds items when their delays pass, earliest first', async () => {
    const q = new Workqueue<string>();
    const t0 = Date.now();
    const out: Array<[string, number]> = [];
    q.addAfter('a', 300);
    q.addAfter('b', 100);
    q.addAfter('c', 200);
    q.addAfter('d', 200);
    const done = collect(q, 4, out, t0);
    expect(q.len()).toBe(0);
    await vi.advanceTimersByTimeAsync(99);
    expect(out).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(out).toEqual([['b', 100]]);
    await vi.advanceTimersByTimeAsync(200);
    await done;
    expect(out).toEqual([
      ['b', 100],
      ['c', 200],
      ['d', 200],
      ['a', 300],
    ]);
  });

  it('keeps the earlier deadline when an item is already waiting', async () => {
    const q = new Workqueue<string>();
    q.addAfter('x', 1000);
    q.addAfter('x', 100);
    q.addAfter('y', 100);
    q.addAfter('y', 1000);
    await vi.advanceTimersByTimeAsync(100);
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe('x');
    expect(await q.get()).toBe('y');
    q.done('x');
    q.done('y');
    await vi.advanceTimersByTimeAsync(2000);
    expect(q.len()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a delay ≤ 0 adds at once; a waiting item that is also queued is not duplicated', async () => {
    const q = new Workqueue<string>();
    q.addAfter('now', 0);
    q.addAfter('neg', -5);
    expect(q.len()).toBe(2);
    q.addAfter('z', 50);
    q.add('z');
    await vi.advanceTimersByTimeAsync(50);
    expect(q.len()).toBe(3);
  });

  it('shutdown drops waiting items and clears its timer', async () => {
    const q = new Workqueue<string>();
    q.addAfter('a', 10_000);
    expect(vi.getTimerCount()).toBe(1);
    q.shutDown();
    expect(vi.getTimerCount()).toBe(0);
    q.addAfter('b', 10);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(q.len()).toBe(0);
    expect(await q.get()).toBeUndefined();
  });

  it('addRateLimited waits the limiter delay; forget and numRequeues delegate to it', async () => {
    const q = new Workqueue<string>({ rateLimiter: itemExponentialFailureRateLimiter(5, 1000) });
    q.addRateLimited('a');
    q.addRateLimited('a');
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(3);
    expect(q.len()).toBe(0);
    await vi.advanceTimersByTimeAsync(4);
    expect(q.len()).toBe(0);
    // The first call (5 ms) wins: the later ones (10, 20 ms) only would have moved it later.
    await vi.advanceTimersByTimeAsync(1);
    expect(q.len()).toBe(1);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });

  it('uses the default controller rate limiter when none is given', () => {
    const q = new Workqueue<string>();
    const when = vi.spyOn(q.rateLimiter, 'when');
    q.addRateLimited('k');
    q.addRateLimited('k');
    expect(when.mock.results.map((r) => r.value)).toEqual([5, 10]);
    q.shutDown();
  });

  it('accepts a custom limiter', () => {
    const calls: string[] = [];
    const rl: RateLimiter<string> = {
      when: (i) => {
        calls.push(i);
        return 42_000;
      },
      forget: () => {},
      numRequeues: () => 0,
    };
    const q = new Workqueue({ rateLimiter: rl });
    q.addRateLimited('svc');
    expect(calls).toEqual(['svc']);
    q.shutDown();
  });
});

describe('Workqueue metrics', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reports client-go workqueue metrics for a named queue', async () => {
    const name = uniqueName('metrics');
    const q = new Workqueue<string>({ name });
    q.add('a');
    q.add('b');
    q.add('a');
    expect(await metricValue('workqueue_adds_total', { name })).toBe(2);
    expect(await metricValue('workqueue_depth', { name })).toBe(2);

    vi.advanceTimersByTime(1500);
    const a = await q.get();
    expect(await metricValue('workqueue_depth', { name })).toBe(1);
    expect(await metricValue('workqueue_queue_duration_seconds_count', { name })).toBe(1);
    expect(await metricValue('workqueue_queue_duration_seconds_sum', { name })).toBeCloseTo(1.5);

    vi.advanceTimersByTime(2000);
    expect(await metricValue('workqueue_unfinished_work_seconds', { name })).toBeCloseTo(2);
    expect(await metricValue('workqueue_longest_running_processor_seconds', { name })).toBeCloseTo(2);
    await q.get();
    vi.advanceTimersByTime(1000);
    expect(await metricValue('workqueue_unfinished_work_seconds', { name })).toBeCloseTo(4);
    expect(await metricValue('workqueue_longest_running_processor_seconds', { name })).toBeCloseTo(3);

    q.done(a as string);
    expect(await metricValue('workqueue_work_duration_seconds_count', { name })).toBe(1);
    expect(await metricValue('workqueue_work_duration_seconds_sum', { name })).toBeCloseTo(3);
    expect(await metricValue('workqueue_longest_running_processor_seconds', { name })).toBeCloseTo(1);

    q.addAfter('c', 10);
    q.addAfter('d', 0);
    q.addRateLimited('e');
    expect(await metricValue('workqueue_retries_total', { name })).toBe(3);
    q.shutDown();
  });

  it('a re-add while processing counts an add and the depth', async () => {
    const name = uniqueName('readd');
    const q = new Workqueue<string>({ name });
    q.add('a');
    await q.get();
    q.add('a');
    expect(await metricValue('workqueue_adds_total', { name })).toBe(2);
    expect(await metricValue('workqueue_depth', { name })).toBe(1);
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('uses upstream help texts and buckets, and unnamed queues report nothing', async () => {
    const q = new Workqueue<string>();
    q.add('x');
    const text = await metricsRegistry.metrics();
    expect(text).toContain('# HELP workqueue_depth [BETA] Current depth of workqueue');
    expect(text).toContain('# TYPE workqueue_queue_duration_seconds histogram');
    expect(text).toContain('# HELP workqueue_retries_total [BETA] Total number of retries handled by workqueue');
    expect(text).not.toContain('name=""');
    expect(workqueueDurationBuckets).toEqual([1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000]);
    const name = uniqueName('buckets');
    const named = new Workqueue<string>({ name });
    named.add('x');
    await named.get();
    const text2 = await metricsRegistry.metrics();
    expect(text2).toContain(`workqueue_queue_duration_seconds_bucket{le="0.000001",name="${name}"} 1`);
    expect(text2).toContain(`workqueue_queue_duration_seconds_bucket{le="1000",name="${name}"} 1`);
    q.shutDown();
    named.shutDown();
  });
});

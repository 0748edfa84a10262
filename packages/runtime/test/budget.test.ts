/**
 * The process' cloud budget: the token bucket, strict priority between lanes with a minimum share for lower
 * lanes, AIMD under throttling, Retry-After per lane, one token per call whether or not the provider uses the
 * guard, and a throttled reconcile requeued without growing the item's backoff.
 */
import { Registry } from 'prom-client';
import { useLogCapture } from '@ccm-kit/testing/vitest';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CloudBudget,
  type CloudBudgetOptions,
  type CloudLane,
  currentCloudController,
  onCloudBudgetCharge,
  withCloudController,
  withCloudLane,
} from '../src/budget/index.js';
import { processNextWorkItem } from '../src/controller/index.js';
import { CloudCallGuard, CloudCallThrottledError } from '../src/guard/index.js';
import { Workqueue, itemExponentialFailureRateLimiter } from '../src/workqueue/index.js';
import { setProcessCloudBudget } from '../src/internal.js';

let registry: Registry;
const lines = useLogCapture();

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  registry = new Registry();
});
afterEach(() => {
  vi.useRealTimers();
  setProcessCloudBudget(undefined);
});

function budget(options: Partial<CloudBudgetOptions> = {}): CloudBudget {
  return new CloudBudget({ qps: 10, burst: 1, registry, ...options });
}

/** Queues one call in `lane`; its grant is pushed to `order`. */
function queue(b: CloudBudget, lane: CloudLane, order: string[], label: string = lane): Promise<void> {
  return withCloudLane(lane, async () => {
    await b.acquire('op');
    order.push(label);
  });
}

class Throttled extends Error {
  readonly status = 429;
  constructor(readonly retryAfterMs?: number) {
    super(`429 Too Many Requests${retryAfterMs === undefined ? '' : ` (retry after ${retryAfterMs} ms)`}`);
  }
}

async function metricValue(name: string, labels: Record<string, string> = {}): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  const v = (m?.values as { labels: Record<string, unknown>; value: number; metricName?: string }[] | undefined)?.find(
    (x) =>
      (x.metricName === undefined || x.metricName === name || x.metricName.endsWith('_count')) &&
      Object.entries(labels).every(([k, want]) => x.labels[k] === want),
  );
  return v?.value ?? 0;
}

describe('CloudBudget: the bucket', () => {
  it('lets a burst through without waiting, then one call per 1/qps seconds', async () => {
    const b = budget({ qps: 2, burst: 3 });
    expect([b.acquire('a'), b.acquire('a'), b.acquire('a')]).toEqual([undefined, undefined, undefined]);
    const granted: number[] = [];
    const waits = [0, 1].map(() => b.acquire('a')!.then(() => granted.push(Date.now() - 1_000_000)));
    await vi.advanceTimersByTimeAsync(499);
    expect(granted).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toEqual([500]);
    await vi.advanceTimersByTimeAsync(500);
    await Promise.all(waits);
    expect(granted).toEqual([500, 1000]);
  });

  it('rejects invalid options naming them', () => {
    expect(() => budget({ qps: 0 })).toThrow(/qps must be finite and > 0, got 0/);
    expect(() => budget({ qps: Number.POSITIVE_INFINITY })).toThrow(/qps must be finite/);
    expect(() => budget({ burst: 1.5 })).toThrow(/burst must be an integer >= 1, got 1.5/);
    expect(() => budget({ minShare: 0.6 })).toThrow(/minShare/);
  });

  it('rejects (does not throw) when the signal has already aborted', async () => {
    const b = budget();
    b.acquire('drain');
    const ac = new AbortController();
    ac.abort(new Error('stopped'));
    const result = b.acquire('a', ac.signal);
    await expect(result).rejects.toThrow('stopped');
  });

  it('stops waiting when the signal aborts, with its reason', async () => {
    const b = budget();
    b.acquire('a');
    const ac = new AbortController();
    const waiting = b.acquire('a', ac.signal)!;
    ac.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    // The aborted waiter took no token: the next caller gets the next one.
    await vi.advanceTimersByTimeAsync(100);
    expect(b.acquire('a')).toBeUndefined();
  });
});

describe('CloudBudget: lanes', () => {
  it('serves the highest lane first', async () => {
    const b = budget();
    b.acquire('drain');
    const order: string[] = [];
    const all = [queue(b, 'periodic', order), queue(b, 'hosts', order), queue(b, 'user', order)];
    await vi.advanceTimersByTimeAsync(300);
    await Promise.all(all);
    expect(order).toEqual(['user', 'hosts', 'periodic']);
  });

  it('charges a call with no lane to user', async () => {
    const b = budget();
    b.acquire('drain');
    const order: string[] = [];
    const all = [queue(b, 'hosts', order), b.acquire('unclassified')!.then(() => order.push('none'))];
    await vi.advanceTimersByTimeAsync(200);
    await Promise.all(all);
    expect(order).toEqual(['none', 'hosts']);
  });

  it('gives a waiting lower lane its minimum share (10%) while user work keeps coming, no more', async () => {
    const b = budget({ qps: 10, burst: 1, minShare: 0.1 });
    b.acquire('drain');
    const order: string[] = [];
    const all: Promise<void>[] = [];
    for (let i = 0; i < 40; i++) all.push(queue(b, 'user', order));
    for (let i = 0; i < 40; i++) all.push(queue(b, 'periodic', order));
    await vi.advanceTimersByTimeAsync(4_200);
    // Strict priority, except that every tenth grant goes to the waiting lower lane.
    const periodicAt = order.slice(0, 41).flatMap((l, i) => (l === 'periodic' ? [i] : []));
    expect(periodicAt).toEqual([10, 20, 30, 40]);
    // Then periodic gets everything once the user lane is empty: nothing starves.
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all(all);
    expect(order).toHaveLength(80);
  });

  it('never starves the lowest lane while both higher lanes are busy', async () => {
    const b = budget({ qps: 20, burst: 1 });
    b.acquire('drain');
    const order: string[] = [];
    const periodic = queue(b, 'periodic', order);
    // Higher lanes keep refilling faster than the budget serves them.
    const feeder = setInterval(() => {
      void queue(b, 'user', order);
      void queue(b, 'hosts', order);
    }, 40);
    await vi.advanceTimersByTimeAsync(1_500);
    clearInterval(feeder);
    expect(order.indexOf('periodic')).toBeGreaterThan(0);
    // Each lower lane is owed a tenth of the grants: periodic goes within about ten.
    expect(order.indexOf('periodic')).toBeLessThanOrEqual(12);
    await periodic;
  });
});

describe('CloudBudget: throttling (AIMD)', () => {
  it('lowers the rate to 0.7× by default on a throttle', () => {
    const b = budget({ qps: 10 });
    b.observeThrottle('op', new Throttled());
    expect(b.qps).toBeCloseTo(7, 9);
  });

  it('multiplies the rate by `decrease` on a throttle, once per burst of answers, down to the floor', () => {
    const b = budget({ qps: 8, floorQps: 1, decrease: 0.5 });
    b.observeThrottle('op', new Throttled());
    expect(b.qps).toBe(4);
    b.observeThrottle('op', new Throttled()); // the same burst: within a second
    expect(b.qps).toBe(4);
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(1_000);
      b.observeThrottle('op', new Throttled());
    }
    expect(b.qps).toBe(1);
  });

  it('recovers by 10% of the configured rate per 10 s without a throttle, up to the configured rate', () => {
    const b = budget({ qps: 10, decrease: 0.5 });
    b.observeThrottle('op', new Throttled());
    expect(b.qps).toBe(5);
    vi.advanceTimersByTime(9_999);
    expect(b.qps).toBe(5);
    vi.advanceTimersByTime(1);
    expect(b.qps).toBe(6);
    vi.advanceTimersByTime(100_000);
    expect(b.qps).toBe(10);
  });

  it('shows the rate allowed at scrape time in cloudprovider_api_budget_rate, also while it recovers', async () => {
    const b = budget({ qps: 10, decrease: 0.5 });
    expect(await metricValue('cloudprovider_api_budget_rate')).toBe(10);
    b.observeThrottle('op', new Throttled());
    expect(await metricValue('cloudprovider_api_budget_rate')).toBe(5);
    vi.advanceTimersByTime(20_000);
    expect(await metricValue('cloudprovider_api_budget_rate')).toBe(7);
    vi.advanceTimersByTime(100_000);
    expect(await metricValue('cloudprovider_api_budget_rate')).toBe(10);
  });

  it('counts one error object once, and not the guard refusing to send', async () => {
    const b = budget({ qps: 8, decrease: 0.5 });
    const err = new Throttled();
    withCloudLane('hosts', () => {
      b.observeThrottle('op', err);
      vi.advanceTimersByTime(2_000);
      b.observeThrottle('op', err);
      b.observeThrottle('op', new CloudCallThrottledError('op', 5_000));
    });
    expect(b.qps).toBe(4);
    expect(await metricValue('cloudprovider_api_budget_throttles_total', { lane: 'hosts' })).toBe(1);
    expect(await metricValue('cloudprovider_api_budget_rate')).toBe(4);
  });

  it("holds the throttled lane for the answer's Retry-After while other lanes go on, and logs the lane", async () => {
    const b = budget({ qps: 10, burst: 1 });
    withCloudLane('periodic', () => b.observeThrottle('op', new Throttled(2_000)));
    expect(lines.join('\n')).toMatch(/lowering the cloud budget.*lane="periodic"/);
    const order: string[] = [];
    const periodic = queue(b, 'periodic', order);
    const user = queue(b, 'user', order);
    await vi.advanceTimersByTimeAsync(1_000);
    await user;
    expect(order).toEqual(['user']);
    await vi.advanceTimersByTimeAsync(1_000);
    await periodic;
    expect(order).toEqual(['user', 'periodic']);
    expect(b.delayMs('periodic')).toBe(0);
  });
});

describe('CloudBudget: charges', () => {
  it("are published in the caller's asynchronous context, also after a wait", async () => {
    const b = budget({ qps: 10, burst: 1 });
    const seen: string[] = [];
    const off = onCloudBudgetCharge((c) => seen.push(`${c.operation}:${currentCloudController()}:${c.waitedMs}`));
    const first = withCloudController('a', () => b.acquire('first'));
    const second = withCloudController('b', () => b.acquire('second'));
    await vi.advanceTimersByTimeAsync(100);
    await second;
    off();
    expect(first).toBeUndefined();
    expect(seen).toEqual(['first:a:0', 'second:b:100']);
  });
});

describe('CloudBudget: one token per call', () => {
  it('a facet call whose provider sends one guarded request takes one token; each further request one more', async () => {
    const b = budget({ qps: 1, burst: 3 });
    setProcessCloudBudget(b);
    const guard = new CloudCallGuard({ provider: 'budgettest', registry, retries: 0 });
    const charges: string[] = [];
    const off = onCloudBudgetCharge((c) => charges.push(`${c.controller}/${c.lane}/${c.operation}/${c.waitedMs}`));
    await withCloudController('service-lb-controller', () =>
      withCloudLane('user', () =>
        b.run('loadBalancer.ensureLoadBalancer', async () => {
          await guard.call('get_lb', async () => 'ok');
          await guard.call('update_lb', async () => 'ok');
        }),
      ),
    );
    off();
    // Two requests: the facet's token (used by the first) and one more.
    expect(charges).toEqual([
      'service-lb-controller/user/loadBalancer.ensureLoadBalancer/0',
      'service-lb-controller/user/update_lb/0',
    ]);
    expect(b.acquire('third')).toBeUndefined();
    expect(b.acquire('fourth')).toBeInstanceOf(Promise);
    expect(
      await metricValue('cloudprovider_api_budget_calls_total', { controller: 'service-lb-controller', lane: 'user' }),
    ).toBe(2);
  });

  it("reports a guarded request's 429 to the budget once, not again through the facet call", async () => {
    const b = budget({ qps: 8, burst: 8, decrease: 0.5 });
    setProcessCloudBudget(b);
    const guard = new CloudCallGuard({ provider: 'budgettest', registry, retries: 0 });
    await expect(
      withCloudLane('periodic', () =>
        b.run('instances.instanceMetadata', () => guard.call('get', () => Promise.reject(new Throttled()))),
      ),
    ).rejects.toThrow('429');
    expect(await metricValue('cloudprovider_api_budget_throttles_total', { lane: 'periodic' })).toBe(1);
    expect(b.qps).toBe(4);
  });
});

describe('a throttled reconcile', () => {
  function worker(reconcile: () => Promise<void>) {
    const queue = new Workqueue<string>({
      name: 'test',
      rateLimiter: itemExponentialFailureRateLimiter(5_000, 300_000),
    });
    const addAfter = vi.spyOn(queue, 'addAfter');
    return { queue, addAfter, w: { name: 'test', queue, reconcile } };
  }

  it('is requeued after the Retry-After, without growing the backoff, when the error only quotes the throttle', async () => {
    // A floor of 5/s keeps each wait for a token short next to the Retry-After.
    const b = budget({ floorQps: 5 });
    setProcessCloudBudget(b);
    const { queue, addAfter, w } = worker(async () => {
      try {
        await b.run('loadBalancer.ensureLoadBalancer', () => Promise.reject(new Throttled(3_000)));
      } catch (err) {
        // As upstream's %v wrapping: the text only, no cause.
        // eslint-disable-next-line preserve-caught-error -- the point of the test
        throw new Error(`failed to ensure load balancer: ${(err as Error).message}`);
      }
    });
    queue.add('ns/svc');
    for (let i = 0; i < 10; i++) {
      const step = processNextWorkItem(w, new AbortController().signal);
      // The throttled lane waits out the Retry-After in the budget, then the requeued key is back.
      await vi.advanceTimersByTimeAsync(5_000);
      await step;
    }
    // Ten throttled syncs, and the item's backoff has not grown: no rate-limited requeue was counted.
    expect(queue.numRequeues('ns/svc')).toBe(0);
    expect(addAfter).toHaveBeenCalledTimes(10);
    expect(addAfter.mock.calls[0]).toEqual(['ns/svc', 3_000]);
    expect(lines.join('\n')).toMatch(/retrying after the requested delay.*the cloud API throttled a call in lane user/);
  });

  it('still backs off for any other failure, and without a budget exactly as before', async () => {
    const b = budget();
    setProcessCloudBudget(b);
    const { queue, w } = worker(async () => {
      await b.run('loadBalancer.ensureLoadBalancer', () => Promise.reject(new Error('quota exceeded for project')));
    });
    queue.add('ns/svc');
    await processNextWorkItem(w, new AbortController().signal);
    expect(queue.numRequeues('ns/svc')).toBe(1);

    setProcessCloudBudget(undefined);
    const plain = worker(() => Promise.reject(new Throttled(3_000)));
    plain.queue.add('ns/svc');
    await processNextWorkItem(plain.w, new AbortController().signal);
    expect(plain.queue.numRequeues('ns/svc')).toBe(1);
  });
});

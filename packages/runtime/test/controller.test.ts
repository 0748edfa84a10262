import { RetryError } from '@ccm-kit/cloud-provider';
import {
  ControllerManagerMetrics,
  controllerStarted,
  controllerStopped,
  itemExponentialFailureRateLimiter,
  metricsRegistry,
  runWorkers,
  setLogWriter,
  Workqueue,
} from '@ccm-kit/runtime';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

let lines: string[] = [];
beforeEach(() => {
  lines = [];
  setLogWriter((l) => lines.push(l));
});
afterEach(() => {
  setLogWriter((l) => process.stderr.write(`${l}\n`));
  vi.useRealTimers();
});

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('runWorkers', () => {
  it('reconciles every key and forgets it on success', async () => {
    const q = new Workqueue<string>({ rateLimiter: itemExponentialFailureRateLimiter(1, 10) });
    const ac = new AbortController();
    const seen: string[] = [];
    q.rateLimiter.when('a'); // a failure from earlier
    const run = runWorkers({
      name: 'test',
      queue: q,
      workers: 2,
      signal: ac.signal,
      reconcile: async (key) => {
        seen.push(key);
      },
    });
    q.add('a');
    q.add('b');
    await tick(5);
    expect(seen.sort()).toEqual(['a', 'b']);
    expect(q.numRequeues('a')).toBe(0);
    ac.abort();
    await run;
    expect(q.shuttingDown()).toBe(true);
  });

  it('requeues a failed key rate-limited and logs the error; sync throws are caught too', async () => {
    vi.useFakeTimers();
    const q = new Workqueue<string>({ rateLimiter: itemExponentialFailureRateLimiter(1000, 60_000) });
    const ac = new AbortController();
    const attempts: number[] = [];
    const t0 = Date.now();
    const run = runWorkers({
      name: 'svc',
      queue: q,
      workers: 1,
      signal: ac.signal,
      reconcile: (key) => {
        attempts.push(Date.now() - t0);
        if (attempts.length < 3) throw new Error(`sync ${key} failed`);
      },
    });
    q.add('ns/a');
    await vi.advanceTimersByTimeAsync(0);
    expect(attempts).toEqual([0]);
    expect(q.numRequeues('ns/a')).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(attempts).toEqual([0, 1000]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(attempts).toEqual([0, 1000, 3000]);
    expect(q.numRequeues('ns/a')).toBe(0);
    expect(lines.filter((l) => l.includes('Error syncing') && l.includes('sync ns/a failed'))).toHaveLength(
      2,
    );
    ac.abort();
    await run;
  });

  it('honours a RetryError: addAfter its delay, no forget, no rate-limited entry', async () => {
    vi.useFakeTimers();
    const q = new Workqueue<string>({ rateLimiter: itemExponentialFailureRateLimiter(5000, 300_000) });
    q.rateLimiter.when('ns/lb'); // one earlier failure: must survive the RetryError
    const addAfter = vi.spyOn(q, 'addAfter');
    const addRateLimited = vi.spyOn(q, 'addRateLimited');
    const ac = new AbortController();
    let calls = 0;
    const run = runWorkers({
      name: 'service',
      queue: q,
      workers: 1,
      signal: ac.signal,
      reconcile: () => {
        calls++;
        if (calls === 1)
          throw new Error('failed to ensure load balancer', {
            cause: new RetryError('LB create in progress', 42_000),
          });
      },
    });
    q.add('ns/lb');
    await vi.advanceTimersByTimeAsync(0);
    expect(addAfter).toHaveBeenCalledTimes(1);
    expect(addAfter).toHaveBeenCalledWith('ns/lb', 42_000);
    expect(addRateLimited).not.toHaveBeenCalled();
    expect(q.numRequeues('ns/lb')).toBe(1);
    await vi.advanceTimersByTimeAsync(41_999);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    expect(q.numRequeues('ns/lb')).toBe(0);
    ac.abort();
    await run;
  });

  it('with honorRetryError false, a RetryError backs off like any error', async () => {
    const q = new Workqueue<string>({ rateLimiter: itemExponentialFailureRateLimiter(60_000, 60_000) });
    const ac = new AbortController();
    const run = runWorkers({
      name: 'x',
      queue: q,
      workers: 1,
      signal: ac.signal,
      honorRetryError: false,
      reconcile: () => {
        throw new RetryError('later', 1);
      },
    });
    q.add('k');
    await tick(5);
    expect(q.numRequeues('k')).toBe(1);
    ac.abort();
    await run;
  });

  it('forgetBeforeReconcile forgets first, so a failure starts the backoff afresh', async () => {
    const q = new Workqueue<string>({ rateLimiter: itemExponentialFailureRateLimiter(60_000, 60_000) });
    q.rateLimiter.when('routes');
    q.rateLimiter.when('routes');
    const ac = new AbortController();
    const run = runWorkers({
      name: 'route',
      queue: q,
      workers: 1,
      signal: ac.signal,
      forgetBeforeReconcile: true,
      reconcile: () => {
        throw new Error('x');
      },
    });
    q.add('routes');
    await tick(5);
    expect(q.numRequeues('routes')).toBe(1);
    ac.abort();
    await run;
  });

  it('runs up to `workers` keys at once and never one key twice at once', async () => {
    const q = new Workqueue<string>();
    const ac = new AbortController();
    const active = new Set<string>();
    let max = 0;
    let overlap = 0;
    let total = 0;
    const run = runWorkers({
      name: 'par',
      queue: q,
      workers: 3,
      signal: ac.signal,
      reconcile: async (key) => {
        if (active.has(key)) overlap++;
        active.add(key);
        max = Math.max(max, active.size);
        total++;
        await tick(2);
        if (total < 60) q.add(key);
        active.delete(key);
      },
    });
    for (let i = 0; i < 10; i++) q.add(`k${i}`);
    for (let i = 0; i < 200 && total < 60; i++) await tick(2);
    ac.abort();
    await run;
    expect(overlap).toBe(0);
    expect(max).toBe(3);
    expect(total).toBeGreaterThanOrEqual(60);
  });

  it('stops on abort: takes no new key and waits for in-flight reconciles', async () => {
    const q = new Workqueue<string>();
    const ac = new AbortController();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const started: string[] = [];
    let finished = 0;
    let sawAbort = false;
    const run = runWorkers({
      name: 'stop',
      queue: q,
      workers: 1,
      signal: ac.signal,
      reconcile: async (key, signal) => {
        started.push(key);
        await gate;
        sawAbort = signal.aborted;
        finished++;
      },
    });
    q.add('a');
    q.add('b');
    await tick(1);
    let resolved = false;
    void run.then(() => {
      resolved = true;
    });
    ac.abort();
    await tick(1);
    expect(resolved).toBe(false);
    release();
    await run;
    expect(started).toEqual(['a']);
    expect(finished).toBe(1);
    expect(sawAbort).toBe(true);
    expect(q.shuttingDown()).toBe(true);
    expect(lines.some((l) => l.includes('Error syncing'))).toBe(false);
  });

  it('returns when the queue is shut down, and validates workers', async () => {
    const q = new Workqueue<string>();
    const run = runWorkers({
      name: 'q',
      queue: q,
      workers: 2,
      signal: new AbortController().signal,
      reconcile: () => {},
    });
    q.shutDown();
    await run;
    await expect(
      runWorkers({
        name: 'q',
        queue: q,
        workers: 0,
        signal: new AbortController().signal,
        reconcile: () => {},
      }),
    ).rejects.toThrow(/workers/);
  });
});

describe('running_managed_controllers', () => {
  it('is 1 while a controller runs and 0 once stopped, labelled name and manager', async () => {
    controllerStarted('cloud-node');
    new ControllerManagerMetrics('other-manager').controllerStarted('service');
    let text = await metricsRegistry.metrics();
    expect(text).toContain(
      '# HELP running_managed_controllers [BETA] Indicates where instances of a controller are currently running',
    );
    expect(text).toContain('# TYPE running_managed_controllers gauge');
    expect(text).toContain(
      'running_managed_controllers{name="cloud-node",manager="cloud-controller-manager"} 1',
    );
    expect(text).toContain('running_managed_controllers{name="service",manager="other-manager"} 1');
    controllerStopped('cloud-node');
    text = await metricsRegistry.metrics();
    expect(text).toContain(
      'running_managed_controllers{name="cloud-node",manager="cloud-controller-manager"} 0',
    );
  });
});

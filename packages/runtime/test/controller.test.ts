/**
 * The runtime loop: runWorkers, processNextWorkItem one step at a time (as controller-runtime's and upstream's
 * processNextWorkItem), worker restarts, workqueue metrics; and running_managed_controllers.
 */
import { RetryError } from '@ccm-kit/cloud-provider';
import { metricsRegistry } from '@ccm-kit/runtime';
import {
  controllerStarted,
  controllerStopped,
  processNextWorkItem,
  type QueueWorker,
  type ReconcileFailure,
  runWorkers,
} from '@ccm-kit/runtime/controller';
import { itemExponentialFailureRateLimiter, Workqueue } from '@ccm-kit/runtime/workqueue';
import { ControllerManagerMetrics, WORKER_RESTART_MS } from '@ccm-kit/runtime/internal';
import { eventuallyValue, useLogCapture } from '@ccm-kit/testing/vitest';
import { afterEach, describe, expect, it, vi } from 'vitest';

const lines = useLogCapture();
afterEach(() => {
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
    expect(lines.filter((l) => l.includes('Error syncing') && l.includes('sync ns/a failed'))).toHaveLength(2);
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
    await eventuallyValue(() => total >= 60, { timeoutMs: 5_000, intervalMs: 2 });
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

const live = () => new AbortController().signal;

/** A queue with one earlier failure of `key`, and spies on the calls the loop makes. */
function queueWith(key: string, name = '') {
  const queue = new Workqueue<string>({ name, rateLimiter: itemExponentialFailureRateLimiter(60_000, 60_000) });
  queue.rateLimiter.when(key);
  const spies = {
    forget: vi.spyOn(queue, 'forget'),
    done: vi.spyOn(queue, 'done'),
    addAfter: vi.spyOn(queue, 'addAfter'),
    addRateLimited: vi.spyOn(queue, 'addRateLimited'),
  };
  queue.add(key);
  return { queue, spies };
}

function worker(
  queue: Workqueue<string>,
  reconcile: QueueWorker<string>['reconcile'],
  extra: Partial<QueueWorker<string>> = {},
): QueueWorker<string> {
  return { name: 'test', queue, reconcile, ...extra };
}

describe('processNextWorkItem', () => {
  it('success: reconciles the key once, forgets it (backoff reset) and marks it done', async () => {
    const { queue, spies } = queueWith('ns/a');
    const seen: string[] = [];
    expect(
      await processNextWorkItem(
        worker(queue, (k) => void seen.push(k)),
        live(),
      ),
    ).toBe(true);
    expect(seen).toEqual(['ns/a']);
    expect(spies.forget).toHaveBeenCalledWith('ns/a');
    expect(queue.numRequeues('ns/a')).toBe(0);
    expect(spies.done).toHaveBeenCalledWith('ns/a');
    expect(spies.addRateLimited).not.toHaveBeenCalled();
    queue.shutDown();
  });

  it('error: requeues rate-limited, does not forget, and hands the failure to onError', async () => {
    const { queue, spies } = queueWith('ns/a');
    const failures: ReconcileFailure<string>[] = [];
    const err = new Error('boom');
    const w = worker(
      queue,
      () => {
        throw err;
      },
      { onError: (f) => failures.push(f) },
    );
    expect(await processNextWorkItem(w, live())).toBe(true);
    expect(spies.addRateLimited).toHaveBeenCalledWith('ns/a');
    expect(spies.forget).not.toHaveBeenCalled();
    expect(queue.numRequeues('ns/a')).toBe(2);
    expect(spies.done).toHaveBeenCalledWith('ns/a');
    expect(failures).toEqual([{ key: 'ns/a', err }]);
    expect(lines.some((l) => l.includes('Error syncing'))).toBe(false); // onError replaced the default line
    queue.shutDown();
  });

  it('without onError, logs the default "requeuing with rate limit" line', async () => {
    const { queue } = queueWith('k');
    await processNextWorkItem(
      worker(queue, () => Promise.reject(new Error('sync k failed'))),
      live(),
    );
    expect(lines.filter((l) => l.includes('Error syncing; requeuing with rate limit'))).toHaveLength(1);
    queue.shutDown();
  });

  it('RetryError in the cause chain: addAfter its delay, no forget, no rate-limited entry', async () => {
    const { queue, spies } = queueWith('ns/lb');
    const failures: ReconcileFailure<string>[] = [];
    const w = worker(
      queue,
      () => {
        throw new Error('failed to ensure load balancer', { cause: new RetryError('in progress', 42_000) });
      },
      { onError: (f) => failures.push(f) },
    );
    await processNextWorkItem(w, live());
    expect(spies.addAfter).toHaveBeenCalledWith('ns/lb', 42_000);
    expect(spies.addRateLimited).not.toHaveBeenCalled();
    expect(spies.forget).not.toHaveBeenCalled();
    expect(queue.numRequeues('ns/lb')).toBe(1); // the earlier failure survives
    expect(failures[0]).toMatchObject({ key: 'ns/lb', retryAfterMs: 42_000, retryMessage: 'in progress' });
    queue.shutDown();
  });

  it('honorRetryError false: a RetryError backs off rate-limited like any error', async () => {
    const { queue, spies } = queueWith('k');
    const w = worker(
      queue,
      () => {
        throw new RetryError('later', 1);
      },
      { honorRetryError: false },
    );
    await processNextWorkItem(w, live());
    expect(spies.addRateLimited).toHaveBeenCalledWith('k');
    expect(spies.addAfter).toHaveBeenCalledTimes(1); // from addRateLimited, with the limiter's delay
    expect(spies.addAfter).toHaveBeenCalledWith('k', 60_000);
    queue.shutDown();
  });

  it('forgetBeforeReconcile: forgets before the call, so a failure backs off from the first step', async () => {
    const { queue, spies } = queueWith('routes');
    let forgottenBeforeCall = false;
    const w = worker(
      queue,
      () => {
        forgottenBeforeCall = spies.forget.mock.calls.length === 1;
        throw new Error('x');
      },
      { forgetBeforeReconcile: true, onError: () => {} },
    );
    await processNextWorkItem(w, live());
    expect(forgottenBeforeCall).toBe(true);
    expect(spies.forget).toHaveBeenCalledTimes(1);
    expect(queue.numRequeues('routes')).toBe(1);
    queue.shutDown();
  });

  it('returns false once the queue is shut down and empty', async () => {
    const queue = new Workqueue<string>();
    queue.shutDown();
    expect(
      await processNextWorkItem(
        worker(queue, () => {}),
        live(),
      ),
    ).toBe(false);
  });

  it('after abort: a dequeued key is not reconciled, and a failing reconcile is not requeued', async () => {
    const { queue, spies } = queueWith('a');
    queue.add('b');
    const ac = new AbortController();
    const onError = vi.fn();
    const reconciled: string[] = [];
    const w = worker(
      queue,
      (k) => {
        reconciled.push(k);
        ac.abort();
        throw new Error('aborted');
      },
      { onError },
    );
    expect(await processNextWorkItem(w, ac.signal)).toBe(true);
    expect(spies.addRateLimited).not.toHaveBeenCalled();
    expect(onError).not.toHaveBeenCalled();
    expect(lines.some((l) => l.includes('Reconcile failed during shutdown'))).toBe(false); // V(2)
    expect(await processNextWorkItem(w, ac.signal)).toBe(false);
    expect(reconciled).toEqual(['a']);
    expect(spies.done).toHaveBeenCalledWith('b');
    queue.shutDown();
  });
});

describe('runWorkers: restart and metrics', () => {
  it('a failure of the loop itself is logged and the worker restarts after WORKER_RESTART_MS', async () => {
    vi.useFakeTimers();
    // A long backoff, so the requeued `a` does not come back during the test.
    const queue = new Workqueue<string>({ rateLimiter: itemExponentialFailureRateLimiter(60_000, 60_000) });
    const ac = new AbortController();
    const seen: string[] = [];
    let throwOnce = true;
    const run = runWorkers({
      ...worker(queue, (k) => {
        seen.push(k);
        throw new Error('reconcile failed');
      }),
      // onError throwing is a failure of the loop, not of the reconcile.
      onError: () => {
        if (throwOnce) {
          throwOnce = false;
          throw new Error('logger broke');
        }
      },
      workers: 1,
      signal: ac.signal,
    });
    queue.add('a');
    await vi.advanceTimersByTimeAsync(0);
    expect(lines.filter((l) => l.includes('Worker failed; restarting'))).toHaveLength(1);
    queue.add('b');
    await vi.advanceTimersByTimeAsync(WORKER_RESTART_MS - 1);
    expect(seen).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toEqual(['a', 'b']);
    ac.abort();
    await run;
  });

  it('a restarting worker stops at once when the signal aborts during the pause', async () => {
    vi.useFakeTimers();
    const queue = new Workqueue<string>();
    const ac = new AbortController();
    const run = runWorkers({
      ...worker(queue, () => Promise.reject(new Error('x'))),
      onError: () => {
        throw new Error('logger broke');
      },
      workers: 1,
      signal: ac.signal,
    });
    queue.add('a');
    await vi.advanceTimersByTimeAsync(0);
    ac.abort();
    await run; // resolves without waiting for the restart pause
    expect(queue.shuttingDown()).toBe(true);
  });

  it('reports workqueue_* metrics of a named queue: work duration per key, retries per requeue', async () => {
    const name = 'loop-metrics-test';
    const value = async (metric: string, suffix = '') => {
      const m = await metricsRegistry.getSingleMetric(metric)?.get();
      const values = (m?.values ?? []) as Array<{
        labels: Record<string, unknown>;
        value: number;
        metricName?: string;
      }>;
      return values.find((v) => v.labels.name === name && (suffix === '' || v.metricName === suffix))?.value;
    };
    const queue = new Workqueue<string>({ name, rateLimiter: itemExponentialFailureRateLimiter(1, 1) });
    const ac = new AbortController();
    let calls = 0;
    const run = runWorkers({
      ...worker(queue, () => {
        calls++;
        if (calls === 1) throw new Error('first fails');
        if (calls === 2) throw new RetryError('second waits', 1);
      }),
      onError: () => {},
      workers: 1,
      signal: ac.signal,
    });
    queue.add('k');
    await eventuallyValue(() => calls >= 3, { timeoutMs: 5_000, intervalMs: 5 });
    expect(calls).toBe(3);
    await new Promise((r) => setTimeout(r, 5));
    expect(await value('workqueue_retries_total')).toBe(2);
    expect(await value('workqueue_adds_total')).toBe(3);
    expect(await value('workqueue_work_duration_seconds', 'workqueue_work_duration_seconds_count')).toBe(3);
    expect(await value('workqueue_depth')).toBe(0);
    ac.abort();
    await run;
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
    expect(text).toContain('running_managed_controllers{name="cloud-node",manager="cloud-controller-manager"} 1');
    expect(text).toContain('running_managed_controllers{name="service",manager="other-manager"} 1');
    controllerStopped('cloud-node');
    text = await metricsRegistry.metrics();
    expect(text).toContain('running_managed_controllers{name="cloud-node",manager="cloud-controller-manager"} 0');
  });
});

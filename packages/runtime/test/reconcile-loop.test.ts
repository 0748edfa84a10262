/**
 * The runtime loop one step at a time (processNextWorkItem, as controller-runtime's and upstream's
 * processNextWorkItem) and the worker pool's restart and metrics.
 */
import { RetryError } from '@ccm-kit/cloud-provider';
import {
  itemExponentialFailureRateLimiter,
  metricsRegistry,
  processNextWorkItem,
  type QueueWorker,
  type ReconcileFailure,
  runWorkers,
  setLogWriter,
  WORKER_RESTART_MS,
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
    expect(await processNextWorkItem(worker(queue, (k) => void seen.push(k)), live())).toBe(true);
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
    expect(await processNextWorkItem(worker(queue, () => {}), live())).toBe(false);
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
      return m?.values.find((v) => v.labels.name === name && (suffix === '' || v.metricName === suffix))
        ?.value;
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
    for (let i = 0; i < 100 && calls < 3; i++) await new Promise((r) => setTimeout(r, 5));
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

/**
 * The worker pool of a controller: `workers` async loops that take keys from a {@link Workqueue},
 * reconcile them and requeue on failure, as the `processNextWorkItem` loops of upstream controllers
 * (for example `controllers/service/controller.go` `processNextServiceItem`).
 */
import { findError, RetryError } from '@ccm-kit/cloud-provider';
import { createLogger, type Logger } from '../logging.js';
import { sleep } from '../util/sleep.js';
import type { Workqueue } from '../workqueue/queue.js';

/** Reconciles one key. A thrown error or rejection requeues the key; it never crashes the process. */
export type ReconcileFunc<T> = (key: T, signal: AbortSignal) => void | Promise<void>;

/** Options of {@link runWorkers}. */
export interface RunWorkersOptions<T> {
  /** The controller name, used in log lines. */
  name: string;
  /** The queue to drain. It is shut down when `signal` aborts. */
  queue: Workqueue<T>;
  /** How many keys are reconciled concurrently (an integer ≥ 1; distinct keys only, by the queue's rules). */
  workers: number;
  /** Called once per dequeued key. */
  reconcile: ReconcileFunc<T>;
  /** Stops the workers: no new key is taken, in-flight reconciles are awaited. */
  signal: AbortSignal;
  /** Where errors are logged (default logger named `name`). */
  logger?: Logger;
  /**
   * Honour a {@link RetryError} in the error's cause chain (default true): requeue after its
   * `retryAfterMs` with `addAfter`, without `forget` and without a rate-limited entry, so the
   * per-key backoff is unchanged (upstream service controller). When false it backs off like any error.
   */
  honorRetryError?: boolean;
  /**
   * Call `forget(key)` before reconciling instead of after a success (the route controller does this
   * so that a failure during the pass backs off from the start). Default false.
   */
  forgetBeforeReconcile?: boolean;
}

/** After an unexpected failure of the worker loop itself, it restarts after this long (`wait.UntilWithContext(worker, 1s)`). */
const WORKER_RESTART_MS = 1000;

/**
 * Runs the workers until `signal` aborts or the queue is shut down, then resolves once every in-flight
 * reconcile has finished. On success the key is forgotten (its backoff reset); on an error carrying a
 * `RetryError` it is requeued after the error's delay; on any other error it is requeued rate-limited
 * and the error is logged.
 *
 * @throws RangeError when `workers` is not an integer ≥ 1.
 */
export async function runWorkers<T>(options: RunWorkersOptions<T>): Promise<void> {
  const { name, queue, workers, reconcile, signal } = options;
  if (!Number.isInteger(workers) || workers < 1)
    throw new RangeError(`workers must be an integer ≥ 1, got ${workers}`);
  const logger = options.logger ?? createLogger(name);
  const honorRetryError = options.honorRetryError ?? true;
  const forgetFirst = options.forgetBeforeReconcile ?? false;

  const onAbort = () => queue.shutDown();
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });

  const handleError = (key: T, err: unknown) => {
    if (signal.aborted) {
      // The queue is shut down; the key is not requeued and the error is most likely the abort itself.
      logger.v(2).info('Reconcile failed during shutdown', { controller: name, key, err: String(err) });
      return;
    }
    const retry = honorRetryError ? findError(err, RetryError) : undefined;
    if (retry) {
      logger.warn('Error syncing; retrying after the requested delay', {
        controller: name,
        key,
        retryAfterMs: retry.retryAfterMs,
        err: retry.message,
      });
      queue.addAfter(key, retry.retryAfterMs);
      return;
    }
    logger.error(err, 'Error syncing; requeuing with rate limit', { controller: name, key });
    queue.addRateLimited(key);
  };

  const processNext = async (): Promise<boolean> => {
    const key = await queue.get(signal);
    if (key === undefined) return false;
    try {
      if (signal.aborted) return false;
      if (forgetFirst) queue.forget(key);
      try {
        await reconcile(key, signal);
        if (!forgetFirst) queue.forget(key);
      } catch (err) {
        handleError(key, err);
      }
      return true;
    } finally {
      queue.done(key);
    }
  };

  const worker = async () => {
    for (;;) {
      try {
        while (await processNext()) {
          // keep going
        }
        return;
      } catch (err) {
        logger.error(err, 'Worker failed; restarting', { controller: name });
        if (!(await sleep(WORKER_RESTART_MS, signal))) return;
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

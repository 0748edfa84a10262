/**
 * One step of the runtime loop: take a key, reconcile it, and forget or requeue it. Follows
 * controller-runtime `pkg/internal/controller/controller.go` (`processNextWorkItem`, `reconcileHandler`)
 * and `k8s.io/cloud-provider` `controllers/service/controller.go` (`processNextServiceItem`).
 */
import { findError, RetryError } from '@ccm-kit/cloud-provider';
import { type ReconcileThrottles, recordingThrottles, throttleBehind } from '../budget/reconcile-throttle.js';
import { createLogger, type Logger } from '../logging.js';
import { type ReconcileSpan, startReconcileSpan } from '../tracing/spans.js';
import type { QueueWorker, ReconcileFailure } from './reconciler.js';

/**
 * Takes one key from `worker.queue` and reconciles it:
 * - success: `forget(key)` (unless `forgetBeforeReconcile`, which forgets before the call);
 * - an error with a `RetryError` in its cause chain (when `honorRetryError`, the default):
 *   `addAfter(key, retryAfterMs)`, no forget, no rate-limited entry;
 * - with a process cloud budget (`--cloud-api-qps`), an error that is or quotes a throttle answer of the cloud
 *   met by this reconcile: `addAfter(key, delay)` (its `Retry-After`, 1 s without one), no rate-limited entry: a
 *   throttled call is no failure of the item (docs/decisions/0063-cloud-budget.md);
 * - any other error: `addRateLimited(key)`;
 * - an error after `signal` aborted: nothing is requeued (the queue is shutting down), logged at V(2).
 * `done(key)` is always called. A key dequeued after `signal` aborted is not reconciled.
 * With tracing on (docs/tracing.md) each reconcile is a span with its outcome and how the key was requeued.
 *
 * @returns false once the queue is shut down (or `signal` aborted), true after handling a key.
 * @throws only what the queue or `onError` throw (the worker loop then restarts after a second).
 */
export async function processNextWorkItem<T>(
  worker: QueueWorker<T>,
  signal: AbortSignal,
  logger: Logger = worker.logger ?? createLogger(worker.name),
): Promise<boolean> {
  const { queue } = worker;
  const key = await queue.get(signal);
  if (key === undefined) return false;
  try {
    if (signal.aborted) return false;
    const forgetFirst = worker.forgetBeforeReconcile ?? false;
    if (forgetFirst) queue.forget(key);
    const throttles: ReconcileThrottles = { throttles: [] };
    const span = startReconcileSpan(worker.name, key);
    try {
      await (span === undefined
        ? recordingThrottles(throttles, () => worker.reconcile(key, signal))
        : span.run(() => recordingThrottles(throttles, () => worker.reconcile(key, signal))));
      if (!forgetFirst) queue.forget(key);
      span?.end('success', 'none');
    } catch (err) {
      handleReconcileError(worker, key, err, signal, logger, throttles, span);
    }
    return true;
  } finally {
    queue.done(key);
  }
}

function handleReconcileError<T>(
  worker: QueueWorker<T>,
  key: T,
  err: unknown,
  signal: AbortSignal,
  logger: Logger,
  throttles: ReconcileThrottles,
  span: ReconcileSpan | undefined,
): void {
  if (signal.aborted) {
    // The queue is shut down; the key is not requeued and the error is most likely the abort itself.
    span?.end('aborted', 'none', undefined, err);
    logger.v(2).info('Reconcile failed during shutdown', { controller: worker.name, key, err: String(err) });
    return;
  }
  const retry = (worker.honorRetryError ?? true) ? findError(err, RetryError) : undefined;
  const failure: ReconcileFailure<T> = { key, err };
  const throttle = throttleBehind(throttles, err);
  if (throttle !== undefined) {
    worker.queue.addAfter(key, throttle.delayMs);
    failure.retryAfterMs = throttle.delayMs;
    const text = err instanceof Error ? err.message : String(err);
    failure.retryMessage = `the cloud API throttled a call in lane ${throttle.lane}: ${text}`;
    span?.end('throttled', 'after', throttle.delayMs, err);
  } else if (retry) {
    worker.queue.addAfter(key, retry.retryAfterMs);
    failure.retryAfterMs = retry.retryAfterMs;
    failure.retryMessage = retry.message;
    span?.end('retry', 'after', retry.retryAfterMs, err);
  } else {
    worker.queue.addRateLimited(key);
    span?.end('error', 'rate-limited', undefined, err);
  }
  (worker.onError ?? defaultOnError(worker.name, logger))(failure);
}

function defaultOnError<T>(name: string, logger: Logger): (failure: ReconcileFailure<T>) => void {
  return ({ key, err, retryAfterMs, retryMessage }) => {
    if (retryAfterMs === undefined) {
      logger.error(err, 'Error syncing; requeuing with rate limit', { controller: name, key });
    } else {
      logger.warn('Error syncing; retrying after the requested delay', {
        controller: name,
        key,
        retryAfterMs,
        err: retryMessage,
      });
    }
  };
}

/**
 * The worker pool of a controller: `workers` async loops of {@link processNextWorkItem} over one queue, as the
 * `wait.UntilWithContext(ctx, worker, time.Second)` goroutines of upstream controllers (for example
 * `controllers/service/controller.go` `Run`) and controller-runtime's `Controller.Start`.
 */
import { createLogger } from '../logging.js';
import { sleep } from '../wait/sleep.js';
import { processNextWorkItem } from './process-next-work-item.js';
import type { QueueWorker } from './reconciler.js';

/** Options of {@link runWorkers}: a {@link QueueWorker} plus the pool size and the stop signal. */
export interface RunWorkersOptions<T> extends QueueWorker<T> {
  /** How many keys are reconciled concurrently (an integer ≥ 1; distinct keys only, by the queue's rules). */
  workers: number;
  /** Stops the workers: the queue is shut down, no new key is taken, in-flight reconciles are awaited. */
  signal: AbortSignal;
}

/** After an unexpected failure of the worker loop itself, it restarts after this long (`wait.UntilWithContext(worker, 1s)`). */
export const WORKER_RESTART_MS = 1000;

/**
 * Runs the workers until `signal` aborts or the queue is shut down, then resolves once every in-flight
 * reconcile has finished. The queue is shut down when `signal` aborts. Each key goes through
 * {@link processNextWorkItem}: forgotten on success, requeued after a `RetryError`'s delay or rate-limited on
 * any other error. A failure of the loop itself (the queue or `onError` throwing) is logged and that worker
 * restarts after {@link WORKER_RESTART_MS}.
 *
 * @throws RangeError when `workers` is not an integer ≥ 1.
 */
export async function runWorkers<T>(options: RunWorkersOptions<T>): Promise<void> {
  const { name, queue, workers, signal } = options;
  if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be an integer ≥ 1, got ${workers}`);
  const logger = options.logger ?? createLogger(name);

  const onAbort = () => queue.shutDown();
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });

  const worker = async () => {
    for (;;) {
      try {
        while (await processNextWorkItem(options, signal, logger)) {
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

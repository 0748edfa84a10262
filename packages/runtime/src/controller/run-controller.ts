/**
 * One way to run a controller from start to stop: the part of every upstream controller's `Run` that is not its
 * own logic. Follows `k8s.io/cloud-provider` (`controllers/service/controller.go` `Run`,
 * `controllers/node/node_controller.go` `Run`, `controllers/route/route_controller.go` `Run`,
 * `controllers/nodelifecycle/node_lifecycle_controller.go` `Run`) and controller-runtime's `Controller.Start`
 * (`pkg/internal/controller/controller.go`): wait for the informer caches, start the workers and the periodic
 * passes, shut the queues down when the context ends.
 */
import { type CloudLane, withCloudLane } from '../budget/lane.js';
import { waitForCacheSync } from '../informers/wait.js';
import { createLogger, type LogFields, type Logger } from '../logging.js';
import { controllerStarted, controllerStopped } from '../metrics/controller-manager.js';
import { jitterUntil, type LoopFunc } from '../wait/wait.js';
import { sleep } from '../wait/sleep.js';
import { whenAborted } from '../wait/until-aborted.js';
import type { QueueWorker } from './reconciler.js';
import { runWorkers } from './run-workers.js';

/** A queue of the controller and how many workers drain it. */
export interface ControllerQueue<T> extends QueueWorker<T> {
  /**
   * Concurrent workers (an integer ≥ 0). 0 starts none (upstream accepts `--concurrent-node-syncs=0` and
   * `--concurrent-service-syncs=0`); the queue is still the controller's and is shut down when it stops.
   */
  workers: number;
  /** The flag that sets `workers` (`--concurrent-service-syncs`), named in the error when `workers` is invalid. */
  workersFlag?: string;
}

/** A pass the controller runs every period, without a queue (upstream's `wait.Until…` loops). */
export interface PeriodicPass {
  /** One pass; it receives the controller's signal. An error is logged (`Loop function failed; continuing`) and the loop goes on. */
  run: LoopFunc;
  /** The period in milliseconds (finite, ≥ 0). */
  periodMs: number;
  /**
   * Sliding (default true, upstream `wait.UntilWithContext`): the period starts after each pass ends. False:
   * it starts with the pass, so a pass longer than the period is followed at once by the next
   * (`wait.NonSlidingUntilWithContext`).
   */
  sliding?: boolean;
  /**
   * The first pass comes one period after the start instead of at once (default false): how an informer's
   * resync period behaves (the service controller's 30 s re-delivery of every Service).
   */
  delayFirst?: boolean;
  /** Every cloud call of a pass is charged to this lane of the cloud budget (`withCloudLane`); default: none. */
  lane?: CloudLane;
}

/**
 * The log lines of a controller's start and stop. Each controller passes its own upstream strings (for example
 * `Starting service controller` / `Shutting down service controller`); a line left out is not logged.
 */
export interface ControllerLogLines {
  /** Logged (info) first, with `startingFields`. */
  starting?: string;
  /** Fields of the `starting` line. */
  startingFields?: LogFields;
  /** Logged (info) before waiting for the caches (upstream `Waiting for informer caches to sync`). */
  waitingForSync?: string;
  /** Logged (error, `failed to wait for caches to sync`) when the signal aborts before the caches synced. */
  syncFailed?: string;
  /** Logged (info) last, once everything has stopped. */
  shuttingDown?: string;
}

/** What {@link runController} runs. Every part is optional; durations in milliseconds. */
export interface RunControllerOptions<T = string> {
  /** The controller's name: the default logger's name. */
  name: string;
  /** The `name` label of `running_managed_controllers` (1 while it runs, 0 after); omitted: the metric is not set. */
  metricsName?: string;
  /** Where the start and stop lines go (default: a logger named `name`). */
  logger?: Logger;
  /** The controller's start and stop lines. */
  logLines?: ControllerLogLines;
  /** Informers whose caches must have synced before any worker or pass starts (none: start at once). */
  informers?: readonly { hasSynced(): boolean }[];
  /** The queues and their workers (`runWorkers` each). Every queue is shut down when the signal aborts. */
  queues?: readonly ControllerQueue<T>[];
  /** Periodic passes, started with the workers. */
  passes?: readonly PeriodicPass[];
  /** Removes the event handlers the controller registered (what `addEventHandler` returned); called on the way out. */
  removeHandlers?: readonly (() => void)[];
  /** Called when the signal aborts, before the queues are shut down (and once more on the way out). */
  onStop?: () => void;
}

function startPass(signal: AbortSignal, pass: PeriodicPass, logger: Logger): Promise<void> {
  const { lane } = pass;
  const run: LoopFunc = lane === undefined ? pass.run : (s) => withCloudLane(lane, () => pass.run(s));
  const loop = () => jitterUntil(signal, run, pass.periodMs, { sliding: pass.sliding ?? true, logger });
  if (!pass.delayFirst) return loop();
  return sleep(pass.periodMs, signal).then((slept) => (slept ? loop() : undefined));
}

/**
 * Runs a controller until `signal` aborts, then resolves once its workers and passes have stopped:
 * 1. logs `logLines.starting` and sets `running_managed_controllers{name=metricsName}` to 1;
 * 2. waits for the `informers` to sync (logging `waitingForSync` first); when `signal` aborts before, logs
 *    `syncFailed` and stops;
 * 3. runs each queue's workers (`runWorkers`: forget on success, requeue on error, see {@link QueueWorker}) and
 *    every periodic pass (sliding or not, in its cloud lane), all until `signal` aborts;
 * 4. when `signal` aborts: `onStop`, then every queue is shut down (no new key is taken; the reconciles in flight
 *    finish);
 * 5. on the way out, whatever happened: the queues are shut down, the event handlers removed, the metric set
 *    to 0 and `logLines.shuttingDown` logged.
 *
 * This is the one check of every controller's worker counts.
 * @throws RangeError (the promise rejects before anything starts) when a queue's `workers` is not an integer ≥ 0,
 *   naming its `workersFlag`; rejects with a RangeError when a pass's `periodMs` is negative or not finite (after
 *   the steps of 5).
 */
export async function runController<T = string>(signal: AbortSignal, options: RunControllerOptions<T>): Promise<void> {
  const { logLines = {}, metricsName, informers = [], queues = [], passes = [], removeHandlers = [] } = options;
  const logger = options.logger ?? createLogger(options.name);
  for (const q of queues) {
    if (!Number.isInteger(q.workers) || q.workers < 0) {
      const what = q.workersFlag === undefined ? 'workers' : `workers (${q.workersFlag})`;
      throw new RangeError(`${q.name}: ${what} must be an integer ≥ 0, got ${q.workers}`);
    }
  }
  if (logLines.starting !== undefined) logger.info(logLines.starting, logLines.startingFields);
  if (metricsName !== undefined) controllerStarted(metricsName);
  const stop = () => {
    options.onStop?.();
    for (const q of queues) q.queue.shutDown();
  };
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  try {
    if (informers.length > 0) {
      if (logLines.waitingForSync !== undefined) logger.info(logLines.waitingForSync);
      if (!(await waitForCacheSync(signal, ...informers))) {
        if (logLines.syncFailed !== undefined) {
          logger.error(new Error('failed to wait for caches to sync'), logLines.syncFailed);
        }
        return;
      }
    }
    await Promise.all([
      whenAborted(signal), // a controller with nothing to run still runs until then
      ...passes.map((pass) => startPass(signal, pass, logger)),
      ...queues.filter((q) => q.workers > 0).map((q) => runWorkers({ ...q, signal })),
    ]);
  } finally {
    signal.removeEventListener('abort', stop);
    stop();
    for (const remove of removeHandlers) remove();
    if (metricsName !== undefined) controllerStopped(metricsName);
    if (logLines.shuttingDown !== undefined) logger.info(logLines.shuttingDown);
  }
}

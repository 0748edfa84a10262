/**
 * The reconcile contract every controller follows, built-in or a vendor's: the controller supplies a
 * reconcile function for one key and the queue the keys come from; the runtime loop
 * ({@link processNextWorkItem}, {@link runWorkers}) owns everything else — dequeue, forget on success,
 * rate-limited requeue on error, `RetryError` delays, worker restarts and shutdown.
 *
 * Follows controller-runtime `pkg/reconcile` (`Reconciler`) and `pkg/internal/controller/controller.go`
 * (`processNextWorkItem`, `reconcileHandler`), and the per-controller `processNextWorkItem` loops of
 * `k8s.io/cloud-provider` (`controllers/service/controller.go` `processNextServiceItem`,
 * `controllers/node/node_controller.go` `processNextWorkItem`, `controllers/route/route_controller.go`).
 */
import type { Logger } from '../logging.js';

/**
 * Reconciles one key: reads the desired state (usually from an informer's lister) and makes the world match.
 * Resolving means done (the key's backoff is reset); throwing or rejecting means "try again": the key is
 * requeued rate-limited, or after `retryAfterMs` when a `RetryError` is in the error's cause chain. It never
 * crashes the process. `signal` aborts when the controller stops.
 */
export type ReconcileFunc<T> = (key: T, signal: AbortSignal) => void | Promise<void>;

/**
 * The workqueue operations the loop uses (client-go `TypedRateLimitingInterface`; delays in ms). The
 * runtime's `Workqueue` is one; tests may pass a recording double.
 */
export interface ReconcileQueue<T> {
  /** The next key, or `undefined` once the queue is shut down (or `signal` aborts). */
  get(signal?: AbortSignal): Promise<T | undefined>;
  /** Marks `key` processed; a key re-added meanwhile is queued again. */
  done(key: T): void;
  /** Resets `key`'s backoff. */
  forget(key: T): void;
  /** Adds `key` after its rate limiter's delay. */
  addRateLimited(key: T): void;
  /** Adds `key` after `delayMs` milliseconds. */
  addAfter(key: T, delayMs: number): void;
  /** Stops the queue: later adds are ignored, `get` resolves `undefined` once empty. */
  shutDown(): void;
}

/** A failed reconcile, as handed to {@link QueueWorker.onError} after the key was requeued. */
export interface ReconcileFailure<T> {
  /** The key whose reconcile failed. */
  key: T;
  /** What the reconcile threw. */
  err: unknown;
  /**
   * Set when the key was requeued after a `RetryError`'s delay (milliseconds, `addAfter`, backoff untouched);
   * unset when it was requeued rate-limited (`addRateLimited`).
   */
  retryAfterMs?: number;
  /** The `RetryError`'s own message, when `retryAfterMs` is set. */
  retryMessage?: string;
}

/** One queue and how its keys are reconciled: what a controller hands to the runtime loop. */
export interface QueueWorker<T> {
  /** The controller (or queue) name, used in log lines. */
  name: string;
  /** Where the keys come from. */
  queue: ReconcileQueue<T>;
  /** Called once per dequeued key, never for the same key twice at once. */
  reconcile: ReconcileFunc<T>;
  /**
   * Honour a `RetryError` in the error's cause chain (default true): requeue after its `retryAfterMs` with
   * `addAfter`, without `forget` and without a rate-limited entry, so the per-key backoff is unchanged
   * (upstream service controller `processNextServiceItem`). When false it backs off like any error.
   */
  honorRetryError?: boolean;
  /**
   * Call `forget(key)` before reconciling instead of after a success (default false). The route controller
   * does this, so an event arriving mid-pass still causes another pass and a failure backs off from the start.
   */
  forgetBeforeReconcile?: boolean;
  /**
   * Logs a failed reconcile (called after the key was requeued, never during shutdown). Default: the
   * runtime's lines `Error syncing; requeuing with rate limit` (error) and
   * `Error syncing; retrying after the requested delay` (warning). Controllers pass their upstream log line.
   */
  onError?: (failure: ReconcileFailure<T>) => void;
  /** Where the loop logs (default: a logger named `name`). */
  logger?: Logger;
}

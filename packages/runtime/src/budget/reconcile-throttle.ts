/**
 * A reconcile that failed only because the cloud throttled one of its calls is not a failure of the item: the
 * workqueue loop requeues it after the throttle's delay instead of growing its backoff
 * (docs/decisions/0063-cloud-budget.md). Active only with a process cloud budget.
 */
import { type CloudLane, runInCallContext } from './lane.js';
import { processCloudBudget } from './process-budget.js';

/** A reconcile's record of the throttle answers its calls met. */
export interface ReconcileThrottles {
  throttles: { err: unknown; delayMs: number; lane: CloudLane }[];
}

/**
 * Runs a reconcile `fn` recording the throttle answers its cloud calls meet (only when a process cloud budget
 * is set; otherwise `fn` runs as is and the record stays empty).
 */
export function recordingThrottles<T>(record: ReconcileThrottles, fn: () => T): T {
  if (processCloudBudget() === undefined) return fn();
  return runInCallContext({ reconcile: record }, fn);
}

/**
 * The throttle behind a reconcile that failed with `err` — when `err` is, wraps (`cause` chain) or quotes (the
 * message of an error wrapped as text, Go's `%v`) a throttle answer the reconcile met — with the delay (ms)
 * after which to requeue it and the lane of the throttled call; `undefined` when the failure is something else.
 */
export function throttleBehind(
  record: ReconcileThrottles,
  err: unknown,
): { delayMs: number; lane: CloudLane } | undefined {
  if (record.throttles.length === 0) return undefined;
  const message = err instanceof Error ? err.message : String(err);
  for (const t of record.throttles) {
    for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 10; depth++) {
      if (e === t.err) return t;
      e = (e as { cause?: unknown }).cause;
    }
    const quoted = t.err instanceof Error ? t.err.message : undefined;
    if (quoted && message.includes(quoted)) return t;
  }
  return undefined;
}

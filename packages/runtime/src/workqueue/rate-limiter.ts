/**
 * Per-item rate limiters for {@link Workqueue.addRateLimited}, as client-go
 * `util/workqueue/default_rate_limiters.go`. Delays are milliseconds.
 */

/** Decides how long an item waits before it is queued again (client-go `TypedRateLimiter`). */
export interface RateLimiter<T = unknown> {
  /** The delay in ms before `item` should be processed again; counts a failure for per-item limiters. */
  when(item: T): number;
  /** Resets `item`'s failure count (call after a success). */
  forget(item: T): void;
  /** How many failures `item` has had since the last `forget`. */
  numRequeues(item: T): number;
}

function checkMs(field: string, v: number): void {
  if (typeof v !== 'number' || Number.isNaN(v) || v < 0)
    throw new RangeError(`${field} must be a number ≥ 0, got ${v}`);
}

/**
 * Per-item exponential backoff: the n-th failure (from 0) waits `baseDelayMs × 2^n`, capped at
 * `maxDelayMs` (`NewItemExponentialFailureRateLimiter`).
 *
 * @throws RangeError when a delay is negative or NaN.
 */
export function itemExponentialFailureRateLimiter<T = unknown>(
  baseDelayMs: number,
  maxDelayMs: number,
): RateLimiter<T> {
  checkMs('baseDelayMs', baseDelayMs);
  checkMs('maxDelayMs', maxDelayMs);
  const failures = new Map<T, number>();
  return {
    when(item) {
      const exp = failures.get(item) ?? 0;
      failures.set(item, exp + 1);
      const backoff = baseDelayMs * 2 ** exp;
      return Number.isFinite(backoff) && backoff <= maxDelayMs ? backoff : maxDelayMs;
    },
    forget: (item) => void failures.delete(item),
    numRequeues: (item) => failures.get(item) ?? 0,
  };
}

/**
 * `fastDelayMs` for the first `maxFastAttempts` failures of an item, then `slowDelayMs`
 * (`NewItemFastSlowRateLimiter`).
 *
 * @throws RangeError when a delay is negative or `maxFastAttempts` is not an integer ≥ 0.
 */
export function itemFastSlowRateLimiter<T = unknown>(
  fastDelayMs: number,
  slowDelayMs: number,
  maxFastAttempts: number,
): RateLimiter<T> {
  checkMs('fastDelayMs', fastDelayMs);
  checkMs('slowDelayMs', slowDelayMs);
  if (!Number.isInteger(maxFastAttempts) || maxFastAttempts < 0) {
    throw new RangeError(`maxFastAttempts must be an integer ≥ 0, got ${maxFastAttempts}`);
  }
  const failures = new Map<T, number>();
  return {
    when(item) {
      const n = (failures.get(item) ?? 0) + 1;
      failures.set(item, n);
      return n <= maxFastAttempts ? fastDelayMs : slowDelayMs;
    },
    forget: (item) => void failures.delete(item),
    numRequeues: (item) => failures.get(item) ?? 0,
  };
}

/**
 * The largest delay of several limiters (`NewMaxOfRateLimiter`). `when` asks every limiter (so each
 * counts the failure); `numRequeues` is the largest count; `forget` forgets in all.
 *
 * @throws RangeError when no limiter is given.
 */
export function maxOfRateLimiter<T = unknown>(...limiters: RateLimiter<T>[]): RateLimiter<T> {
  if (limiters.length === 0) throw new RangeError('maxOfRateLimiter needs at least one limiter');
  return {
    when(item) {
      let max = 0;
      for (const l of limiters) max = Math.max(max, l.when(item));
      return max;
    },
    forget(item) {
      for (const l of limiters) l.forget(item);
    },
    numRequeues(item) {
      let max = 0;
      for (const l of limiters) max = Math.max(max, l.numRequeues(item));
      return max;
    },
  };
}

/** Caps another limiter's delay at `maxDelayMs` (`NewWithMaxWaitRateLimiter`). */
export function withMaxWaitRateLimiter<T = unknown>(limiter: RateLimiter<T>, maxDelayMs: number): RateLimiter<T> {
  checkMs('maxDelayMs', maxDelayMs);
  return {
    when: (item) => Math.min(limiter.when(item), maxDelayMs),
    forget: (item) => limiter.forget(item),
    numRequeues: (item) => limiter.numRequeues(item),
  };
}

/**
 * Cancellable sleeping and bounded timers.
 */

/** Node's setTimeout fires at once for delays above this; longer waits are split. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/**
 * Resolves after `ms` milliseconds with `true`, or as soon as `signal` aborts with `false`
 * (at once if it is already aborted). Never rejects. The timer is cleared on abort, so an aborted
 * sleep keeps nothing alive. Negative, zero or NaN delays resolve on the next macrotask.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      if (timer !== undefined) clearTimeout(timer);
      resolve(false);
    };
    const arm = (remaining: number) => {
      const step = Math.min(Math.max(0, remaining || 0), MAX_TIMER_DELAY_MS);
      timer = setTimeout(() => {
        const left = remaining - step;
        if (left > 0) {
          arm(left);
          return;
        }
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      }, step);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    arm(ms);
  });
}

/**
 * A duration in ms as a Node.js timer delay. Go durations have nanosecond precision (`3.0005s` is 3000.5 ms,
 * `0.5ms` is 0.5) but `AbortSignal.timeout` accepts whole ms only and throws `ERR_OUT_OF_RANGE` otherwise:
 * round **up**, so that a deadline is never shortened, to at least 1 ms (Node.js's own minimum delay).
 */
export function timerDelayMs(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

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

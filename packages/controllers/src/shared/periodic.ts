/**
 * Period loops with client-go `wait` semantics: the function runs immediately, then again every period until
 * the signal aborts. Non-sliding (`wait.NonSlidingUntil`) measures the period from the **start** of each run;
 * sliding (`wait.Until`) waits the period **after** each run ends. Runs never overlap.
 */

/** Resolves after `ms` milliseconds, or early (without rejecting) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Options of {@link runPeriodically}. */
export interface PeriodicOptions {
  /** The period in milliseconds (> 0). */
  periodMs: number;
  /** True for `wait.Until` (period counted after each run), false for `wait.NonSlidingUntil`. */
  sliding: boolean;
  /** Stops the loop; a run in progress is awaited. */
  signal: AbortSignal;
  /** Called with anything `fn` throws; the loop continues. */
  onError?: (err: unknown) => void;
  /** Clock in ms, for tests (default `performance.now`). */
  now?: () => number;
}

/**
 * Runs `fn` now and then every `periodMs` until `signal` aborts; resolves once the loop has stopped.
 * @throws RangeError when `periodMs` is not a positive finite number.
 */
export async function runPeriodically(fn: () => Promise<void> | void, opts: PeriodicOptions): Promise<void> {
  const { periodMs, sliding, signal } = opts;
  if (!Number.isFinite(periodMs) || periodMs <= 0) {
    throw new RangeError(`periodMs must be a positive number of milliseconds, got ${periodMs}`);
  }
  const now = opts.now ?? (() => performance.now());
  while (!signal.aborted) {
    const start = now();
    try {
      await fn();
    } catch (err) {
      opts.onError?.(err);
    }
    if (signal.aborted) break;
    await sleep(sliding ? periodMs : periodMs - (now() - start), signal);
  }
}

/**
 * Waits until every `hasSynced()` returns true (polled every 100 ms, as client-go's `WaitForCacheSync`).
 * @returns true once synced, false if `signal` aborted first.
 */
export async function waitForCacheSync(
  signal: AbortSignal,
  ...informers: ReadonlyArray<{ hasSynced(): boolean }>
): Promise<boolean> {
  while (!signal.aborted) {
    if (informers.every((i) => i.hasSynced())) return true;
    await sleep(100, signal);
  }
  return false;
}

/**
 * Periodic loops and polling, as `k8s.io/apimachinery/pkg/util/wait` (`JitterUntilWithContext`,
 * `UntilWithContext`, `NonSlidingUntilWithContext`, `PollUntilContextTimeout`), with an AbortSignal
 * in place of the context. All durations are milliseconds.
 */
import type { Logger } from '../logging.js';
import { createLogger } from '../logging.js';
import { jitter } from './jitter.js';
import { sleep } from './sleep.js';

/** The body of a loop. It receives the loop's signal; a thrown error or rejection is logged and the loop goes on. */
export type LoopFunc = (signal: AbortSignal) => void | Promise<void>;

/** Options of {@link jitterUntil}. */
export interface JitterUntilOptions {
  /** Each period is `jitter(periodMs, jitterFactor)` when > 0 (default 0: no jitter). */
  jitterFactor?: number;
  /** Sliding (default true): the period starts after each run ends; otherwise it starts with the run. */
  sliding?: boolean;
  /** Where errors thrown by `fn` are logged (default logger `wait`). */
  logger?: Logger;
  /** Randomness for the jitter (default `Math.random`). */
  random?: () => number;
}

const defaultLogger = createLogger('wait');

function checkPeriod(periodMs: number): void {
  if (!Number.isFinite(periodMs) || periodMs < 0) {
    throw new RangeError(`periodMs must be a finite number ≥ 0, got ${periodMs}`);
  }
}

/**
 * Runs `fn` at once and then every `periodMs` until `signal` aborts; resolves after the run in
 * progress (if any) has finished. Unlike upstream, where a panic crashes the process, an error from
 * `fn` is logged and the loop continues.
 *
 * @throws RangeError (synchronously, as a rejected promise) when `periodMs` is negative or not finite.
 */
export async function jitterUntil(
  signal: AbortSignal,
  fn: LoopFunc,
  periodMs: number,
  options: JitterUntilOptions = {},
): Promise<void> {
  checkPeriod(periodMs);
  const { jitterFactor = 0, sliding = true, logger = defaultLogger, random = Math.random } = options;
  while (!signal.aborted) {
    const period = jitterFactor > 0 ? jitter(periodMs, jitterFactor, random) : periodMs;
    const started = Date.now();
    try {
      await fn(signal);
    } catch (err) {
      logger.error(err, 'Loop function failed; continuing');
    }
    if (signal.aborted) return;
    const wait = sliding ? period : period - (Date.now() - started);
    if (wait > 0) await sleep(wait, signal);
    else await new Promise<void>((resolve) => setImmediate(resolve)); // let I/O run between back-to-back runs
  }
}

/**
 * Sliding loop: runs `fn` at once, then waits `periodMs` after each run ends (`wait.UntilWithContext`).
 * Resolves once `signal` has aborted and the current run has finished.
 */
export function until(signal: AbortSignal, fn: LoopFunc, periodMs: number, logger?: Logger): Promise<void> {
  return jitterUntil(signal, fn, periodMs, { sliding: true, logger });
}

/**
 * Non-sliding loop: runs `fn` at once; each period is measured from the **start** of the previous
 * run, so a run longer than the period is followed at once by the next (`wait.NonSlidingUntilWithContext`).
 */
export function nonSlidingUntil(signal: AbortSignal, fn: LoopFunc, periodMs: number, logger?: Logger): Promise<void> {
  return jitterUntil(signal, fn, periodMs, { sliding: false, logger });
}

/** Options of {@link pollUntil}. */
export interface PollOptions {
  /** Time between checks in ms (required, > 0). */
  intervalMs: number;
  /** Give up after this many ms (default: never). */
  timeoutMs?: number;
  /** Check at once before the first interval (default true). */
  immediate?: boolean;
  /** Stop polling when this aborts. */
  signal?: AbortSignal;
}

/** Thrown by {@link pollUntil} when the timeout passes or the signal aborts before the condition holds. */
export class WaitTimeoutError extends Error {
  constructor(message = 'timed out waiting for the condition', options?: ErrorOptions) {
    super(message, options);
    this.name = 'WaitTimeoutError';
  }
}

/**
 * Checks `condition` every `intervalMs` until it returns true (`wait.PollUntilContextTimeout`).
 * An error thrown by the condition ends the wait with that error, as upstream.
 *
 * @throws WaitTimeoutError when `timeoutMs` passes or `signal` aborts first.
 * @throws RangeError when `intervalMs` is not > 0.
 */
export async function pollUntil(condition: () => boolean | Promise<boolean>, options: PollOptions): Promise<void> {
  const { intervalMs, timeoutMs, immediate = true, signal } = options;
  if (!(intervalMs > 0) || !Number.isFinite(intervalMs)) {
    throw new RangeError(`intervalMs must be a finite number > 0, got ${intervalMs}`);
  }
  const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
  let first = true;
  for (;;) {
    if (signal?.aborted) throw new WaitTimeoutError('wait aborted', { cause: signal.reason });
    if (!first || immediate) {
      if (await condition()) return;
    }
    first = false;
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeoutError();
    await sleep(Math.min(intervalMs, left), signal);
  }
}

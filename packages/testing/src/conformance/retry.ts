/**
 * Time limits for provider calls and the service controller's `RetryError` loop, as the conformance
 * suite applies them. All durations in milliseconds.
 */
import { findError, RetryError } from '@ccm-kit/cloud-provider';

/** The shortest wait between two retries, so a `retryAfterMs` of 0 does not spin. */
export const MIN_RETRY_WAIT_MS = 10;

/** A promise that resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Thrown by {@link within} when the call does not settle in time. */
export class CallTimeoutError extends Error {
  constructor(
    readonly label: string,
    readonly timeoutMs: number,
  ) {
    super(`${label} did not settle within ${timeoutMs} ms`);
    this.name = 'CallTimeoutError';
  }
}

/**
 * Settles like `promise`, or rejects with {@link CallTimeoutError} after `timeoutMs`.
 * The timer is cleared as soon as `promise` settles.
 */
export async function within<T>(label: string, timeoutMs: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallTimeoutError(label, timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Limits of {@link retryWhileRetryError}, in milliseconds. */
export interface RetryLimits {
  /** Give up once this much time has passed since the first attempt. */
  readonly deadlineMs: number;
  /** Cap of each wait (a `RetryError`'s `retryAfterMs` above it is shortened). */
  readonly capMs: number;
}

/** Thrown by {@link retryWhileRetryError} when attempts still throw `RetryError` at the deadline. */
export class RetryDeadlineError extends Error {
  constructor(
    readonly attempts: number,
    readonly last: RetryError,
    deadlineMs: number,
  ) {
    super(`still throwing RetryError after ${attempts} attempts in ${deadlineMs} ms (last: ${last.message})`, {
      cause: last,
    });
    this.name = 'RetryDeadlineError';
  }
}

/**
 * Calls `attempt` until it does not throw a `RetryError` (found anywhere in the cause chain, as the
 * service controller does on the ensure path), waiting `min(max(retryAfterMs, 10), capMs)` between
 * attempts.
 * @returns the value and how many attempts threw `RetryError` first.
 * @throws any other error of an attempt, unchanged; {@link RetryDeadlineError} at the deadline.
 */
export async function retryWhileRetryError<T>(
  attempt: () => Promise<T>,
  limits: RetryLimits,
): Promise<{ value: T; retries: number }> {
  const start = performance.now();
  let retries = 0;
  for (;;) {
    try {
      return { value: await attempt(), retries };
    } catch (err) {
      const retry = findError(err, RetryError);
      if (retry === undefined) throw err;
      retries++;
      const waitMs = Math.min(Math.max(retry.retryAfterMs, MIN_RETRY_WAIT_MS), limits.capMs);
      if (performance.now() - start + waitMs > limits.deadlineMs) {
        throw new RetryDeadlineError(retries, retry, limits.deadlineMs);
      }
      await sleep(waitMs);
    }
  }
}

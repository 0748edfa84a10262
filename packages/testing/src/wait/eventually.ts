/**
 * Polling assertions for tests against a control plane, on top of vitest's `vi.waitFor` (real timers, fake
 * timers advanced by it). Two modes: {@link eventually} waits until a callback stops throwing (an assertion
 * that holds), {@link eventuallyValue} until it returns a value (anything but `undefined`, `null` or `false`).
 * Both give up with the callback's last error in the failure message.
 */
import { vi } from 'vitest';
import { errorMessage } from './error-message.js';

/** Default of {@link EventuallyOptions.timeoutMs}: 30 000 ms. */
export const DEFAULT_EVENTUALLY_TIMEOUT_MS = 30_000;
/** Default of {@link EventuallyOptions.intervalMs}: 100 ms. */
export const DEFAULT_EVENTUALLY_INTERVAL_MS = 100;

/** How long and how often {@link eventually} and {@link eventuallyValue} try. */
export interface EventuallyOptions {
  /** Give up after this many milliseconds (default 30 000). Keep it below the test's own timeout. */
  readonly timeoutMs?: number;
  /** Milliseconds between the end of one try and the next (default 100). A try is never run twice at once. */
  readonly intervalMs?: number;
  /** What is awaited, for the failure message, e.g. `'the Service ingress'`. */
  readonly what?: string;
}

/** What {@link eventuallyValue} waits for: a value that is not `undefined`, `null` or `false`. */
export type Present<T> = Exclude<T, undefined | null | false>;

/**
 * Calls `fn` until it returns (or resolves) without throwing, and resolves with that value.
 * `opts` may be a number (the timeout in ms) or a string (`what`).
 * @throws the last error of `fn` after `timeoutMs`, its message prefixed with
 *   `eventually: <what> did not hold within <timeoutMs> ms: ` (an assertion error keeps its diff).
 */
export async function eventually<T>(
  fn: () => T | Promise<T>,
  opts: EventuallyOptions | number | string = {},
): Promise<T> {
  const o = normalize(opts);
  try {
    return await vi.waitFor(fn, { timeout: o.timeoutMs, interval: o.intervalMs });
  } catch (err) {
    throw timedOut(err, o);
  }
}

/**
 * Calls `fn` until it returns (or resolves) a value other than `undefined`, `null` or `false` (so `0` and `''`
 * are values), and resolves with it. A throw counts as "not yet".
 * `opts` may be a number (the timeout in ms) or a string (`what`).
 * @throws Error after `timeoutMs`: `eventually: <what> did not hold within <timeoutMs> ms: <the last error,
 *   or "returned undefined" (null, false)>`.
 */
export async function eventuallyValue<T>(
  fn: () => T | Promise<T>,
  opts: EventuallyOptions | number | string = {},
): Promise<Present<T>> {
  return eventually(async () => {
    const value = await fn();
    if (value === undefined || value === null || value === false) throw new NotYetError(value);
    return value as Present<T>;
  }, opts);
}

/** Thrown inside {@link eventuallyValue} while `fn` returns `undefined`, `null` or `false`. */
class NotYetError extends Error {
  constructor(value: unknown) {
    super(`returned ${String(value)}`);
    this.name = 'NotYetError';
  }
}

function normalize(opts: EventuallyOptions | number | string): Required<Omit<EventuallyOptions, 'what'>> & {
  what: string;
} {
  const o: EventuallyOptions =
    typeof opts === 'number' ? { timeoutMs: opts } : typeof opts === 'string' ? { what: opts } : opts;
  const timeoutMs = o.timeoutMs ?? DEFAULT_EVENTUALLY_TIMEOUT_MS;
  const intervalMs = o.intervalMs ?? DEFAULT_EVENTUALLY_INTERVAL_MS;
  if (!(timeoutMs > 0)) throw new RangeError(`eventually: timeoutMs must be > 0 ms, got ${String(timeoutMs)}`);
  if (!(intervalMs > 0)) throw new RangeError(`eventually: intervalMs must be > 0 ms, got ${String(intervalMs)}`);
  return { timeoutMs, intervalMs, what: o.what ?? 'the condition' };
}

/** The error to throw on time-out: the last error with a prefix, so that vitest still shows its diff. */
function timedOut(err: unknown, o: { timeoutMs: number; what: string }): Error {
  const prefix = `eventually: ${o.what} did not hold within ${o.timeoutMs} ms: `;
  if (err instanceof Error) {
    try {
      err.message = prefix + err.message;
      return err;
    } catch {
      // a frozen error: wrap it below
    }
  }
  return new Error(prefix + errorMessage(err), { cause: err });
}

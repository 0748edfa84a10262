/**
 * Retrying with exponential backoff, as `k8s.io/apimachinery/pkg/util/wait.Backoff` /
 * `ExponentialBackoff` and `k8s.io/client-go/util/retry` (`OnError`, `RetryOnConflict`).
 */
import { jitter } from '../wait/jitter.js';
import { sleep } from '../wait/sleep.js';

/** A backoff schedule. Durations in milliseconds. */
export interface Backoff {
  /** How many times the function may run (≥ 1). */
  steps: number;
  /** The first sleep, before jitter. */
  durationMs: number;
  /** Each sleep is the previous one × factor (0 or 1: constant). */
  factor?: number;
  /** Each sleep gets up to `jitter × sleep` added at random (0: none). */
  jitter?: number;
  /** A cap for the grown duration; reaching it ends growth (upstream zeroes the remaining steps). */
  capMs?: number;
}

/** client-go `retry.DefaultRetry`: 5 steps of 10 ms, factor 1, jitter 0.1. */
export const defaultRetry: Readonly<Backoff> = Object.freeze({
  steps: 5,
  durationMs: 10,
  factor: 1.0,
  jitter: 0.1,
});

/** client-go `retry.DefaultBackoff`: 4 steps from 10 ms, factor 5, jitter 0.1. */
export const defaultBackoff: Readonly<Backoff> = Object.freeze({
  steps: 4,
  durationMs: 10,
  factor: 5.0,
  jitter: 0.1,
});

/**
 * A mutable backoff whose {@link BackoffStepper.step} returns successive sleeps (`wait.Backoff.Step`).
 */
export class BackoffStepper {
  /** The steps left; the backoff stops growing when it reaches 0. */
  steps: number;
  /** The next sleep, in milliseconds. */
  durationMs: number;
  readonly #b: Readonly<Backoff>;
  readonly #random: () => number;

  constructor(backoff: Readonly<Backoff>, random: () => number = Math.random) {
    validateBackoff(backoff);
    this.#b = backoff;
    this.steps = backoff.steps;
    this.durationMs = backoff.durationMs;
    this.#random = random;
  }

  /** The next sleep in ms; consumes a step and grows the duration by the factor. */
  step(): number {
    const j = this.#b.jitter ?? 0;
    if (this.steps < 1) return j > 0 ? jitter(this.durationMs, j, this.#random) : this.durationMs;
    this.steps--;
    const duration = this.durationMs;
    const factor = this.#b.factor ?? 0;
    if (factor !== 0) {
      this.durationMs = this.durationMs * factor;
      const cap = this.#b.capMs ?? 0;
      if (cap > 0 && this.durationMs > cap) {
        this.durationMs = cap;
        this.steps = 0;
      }
    }
    return j > 0 ? jitter(duration, j, this.#random) : duration;
  }
}

function validateBackoff(b: Readonly<Backoff>): void {
  if (!Number.isInteger(b.steps) || b.steps < 1)
    throw new RangeError(`backoff.steps must be an integer ≥ 1, got ${b.steps}`);
  if (!Number.isFinite(b.durationMs) || b.durationMs < 0) {
    throw new RangeError(`backoff.durationMs must be a finite number ≥ 0, got ${b.durationMs}`);
  }
  if (b.factor !== undefined && !(b.factor >= 0)) throw new RangeError(`backoff.factor must be ≥ 0, got ${b.factor}`);
  if (b.jitter !== undefined && !(b.jitter >= 0)) throw new RangeError(`backoff.jitter must be ≥ 0, got ${b.jitter}`);
}

/** Options of {@link onError}. */
export interface RetryOptions {
  /** Stops retrying when aborted: the promise rejects with the last error (or the abort reason). */
  signal?: AbortSignal;
  /** Randomness for the jitter (default `Math.random`). */
  random?: () => number;
}

/**
 * Runs `fn` until it succeeds, retrying while `retriable(err)` holds, at most `backoff.steps` times,
 * sleeping `backoff` between attempts (`retry.OnError`). Resolves with `fn`'s result.
 *
 * @throws the first non-retriable error at once; the last retriable error once the steps run out
 *   or `signal` aborts during a sleep.
 * @throws RangeError when the backoff is invalid (for example `steps` < 1).
 */
export async function onError<R>(
  backoff: Readonly<Backoff>,
  retriable: (err: unknown) => boolean,
  fn: () => R | Promise<R>,
  options: RetryOptions = {},
): Promise<R> {
  const stepper = new BackoffStepper(backoff, options.random);
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!retriable(err)) throw err;
      if (stepper.steps <= 1) throw err;
      if (!(await sleep(stepper.step(), options.signal))) throw err;
    }
  }
}

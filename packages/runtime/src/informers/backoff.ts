/**
 * Exponential backoff with jitter for reconnects (client-go reflector's
 * `NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)`): each delay doubles from `initialMs`,
 * is jittered up by as much as `jitter` × itself, is capped at `maxMs`, and the sequence starts over
 * once `resetAfterMs` pass without a delay being taken.
 */

/** Backoff settings, all durations in milliseconds. */
export interface ReconnectBackoffOptions {
  /** First delay (default 800). */
  initialMs?: number;
  /** Largest delay (default 30 000). */
  maxMs?: number;
  /** Growth per step (default 2). */
  factor?: number;
  /** Random extra, as a fraction of the delay (default 1.0: up to twice the delay). */
  jitter?: number;
  /** Quiet time after which the delay starts over (default 120 000). */
  resetAfterMs?: number;
  /** Random source in [0,1) (tests). */
  random?: () => number;
  /** Monotonic clock in milliseconds (tests). */
  now?: () => number;
}

export class ReconnectBackoff {
  readonly #initial: number;
  readonly #max: number;
  readonly #factor: number;
  readonly #jitter: number;
  readonly #resetAfter: number;
  readonly #random: () => number;
  readonly #now: () => number;
  #current: number;
  #lastAt = Number.NEGATIVE_INFINITY;

  /** @throws RangeError naming the field when a duration is not positive or max < initial. */
  constructor(opts: ReconnectBackoffOptions = {}) {
    this.#initial = opts.initialMs ?? 800;
    this.#max = opts.maxMs ?? 30_000;
    this.#factor = opts.factor ?? 2;
    this.#jitter = opts.jitter ?? 1;
    this.#resetAfter = opts.resetAfterMs ?? 120_000;
    this.#random = opts.random ?? Math.random;
    this.#now = opts.now ?? (() => performance.now());
    if (!(this.#initial > 0)) throw new RangeError(`initialMs must be > 0, got ${this.#initial}`);
    if (!(this.#max >= this.#initial)) throw new RangeError(`maxMs must be >= initialMs, got ${this.#max}`);
    if (!(this.#factor >= 1)) throw new RangeError(`factor must be >= 1, got ${this.#factor}`);
    if (!(this.#jitter >= 0)) throw new RangeError(`jitter must be >= 0, got ${this.#jitter}`);
    this.#current = this.#initial;
  }

  /** The next delay in milliseconds. */
  next(): number {
    const now = this.#now();
    if (now - this.#lastAt > this.#resetAfter) this.#current = this.#initial;
    this.#lastAt = now;
    const base = this.#current;
    this.#current = Math.min(this.#max, this.#current * this.#factor);
    return Math.min(this.#max, base * (1 + this.#random() * this.#jitter));
  }

  /** Starts over from `initialMs`. */
  reset(): void {
    this.#current = this.#initial;
    this.#lastAt = Number.NEGATIVE_INFINITY;
  }
}

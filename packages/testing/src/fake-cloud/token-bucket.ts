/**
 * A token bucket (the shape of client-go's flowcontrol limiter): it holds at most `burst` tokens,
 * starts full, and refills continuously at `qps` tokens per second. Each admitted call takes one token.
 */
export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  readonly #now: () => number;
  #tokens: number;
  #lastMs: number;

  /**
   * @param qps - refill rate in tokens per second; finite and > 0.
   * @param burst - capacity in tokens; an integer ≥ 1.
   * @param now - a monotonic clock in milliseconds.
   * @throws RangeError naming `qps` or `burst` when invalid.
   */
  constructor(qps: number, burst: number, now: () => number) {
    if (typeof qps !== 'number' || !Number.isFinite(qps) || qps <= 0) {
      throw new RangeError(`qps: expected a finite number > 0, got ${String(qps)}`);
    }
    if (!Number.isInteger(burst) || burst < 1) {
      throw new RangeError(`burst: expected an integer >= 1, got ${String(burst)}`);
    }
    this.qps = qps;
    this.burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#lastMs = now();
  }

  #refill(): void {
    const now = this.#now();
    const elapsedMs = Math.max(0, now - this.#lastMs);
    this.#lastMs = now;
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsedMs * this.qps) / 1000);
  }

  /** 0 when a token is available now (without taking it), else the wait in whole milliseconds (≥ 1). */
  waitMs(): number {
    this.#refill();
    if (this.#tokens >= 1) return 0;
    return Math.max(1, Math.ceil(((1 - this.#tokens) * 1000) / this.qps));
  }

  /** Takes one token; call only after {@link waitMs} returned 0 in the same synchronous step. */
  take(): void {
    this.#tokens -= 1;
  }
}

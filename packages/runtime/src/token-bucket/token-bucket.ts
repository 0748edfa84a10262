/**
 * A token bucket with the reservation semantics of `golang.org/x/time/rate.Limiter`:
 * the bucket starts full, refills at `qps` tokens per second up to `burst`, and a reservation
 * may drive the balance negative, so that the caller is told how long to wait before acting.
 * Used by the workqueue's bucket rate limiter and by the event spam filter.
 */
import { type Clock, realClock } from '../clock/clock.js';

/**
 * The balance that counts as one whole token (or one owed grant): a refill adds `elapsed × qps / 1000` in floating
 * point, and a sum of such fractions can fall short of a whole by about 1e-15 (ten times 0.1 is below 1; at 10 a
 * second, refills at 482, 572, 589, … 683 ms leave 0.9999999999999993 at 782 ms, exactly one token's time after the
 * bucket emptied). Used where one bucket must answer as another of the same rate would: the cloud budget and the
 * test kit's cloud quota.
 */
export const WHOLE_TOKEN = 1 - 1e-9;

/** A token bucket; see the module notes. */
export class TokenBucket {
  /** Refill rate in tokens per second (`Infinity` means no limit). */
  readonly qps: number;
  /** Bucket size: the most tokens that can be taken at once. */
  readonly burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  /**
   * @param qps - tokens per second; must be > 0 (`Infinity` allows everything).
   * @param burst - bucket size; an integer ≥ 1.
   * @param clock - the time source (default the real clock).
   * @throws RangeError when `qps` or `burst` is out of range.
   */
  constructor(qps: number, burst: number, clock: Clock = realClock) {
    if (!(qps > 0)) throw new RangeError(`qps must be > 0, got ${qps}`);
    if (!Number.isInteger(burst) || burst < 1) throw new RangeError(`burst must be an integer ≥ 1, got ${burst}`);
    this.qps = qps;
    this.burst = burst;
    this.#clock = clock;
    this.#tokens = burst;
    this.#last = clock.now();
  }

  /** The balance (possibly negative) at time `now` (ms), without changing the bucket. */
  tokensAt(now: number = this.#clock.now()): number {
    const last = Math.min(this.#last, now);
    const refilled = this.#tokens + ((now - last) / 1000) * this.qps;
    return Math.min(refilled, this.burst);
  }

  /**
   * Takes one token now and returns how long, in milliseconds, the caller must wait before acting
   * (0 when a token was available). As `Limiter.Reserve().Delay()`.
   */
  reserve(): number {
    if (this.qps === Number.POSITIVE_INFINITY) return 0;
    const now = this.#clock.now();
    const tokens = this.tokensAt(now) - 1;
    const waitMs = tokens < 0 ? (-tokens / this.qps) * 1000 : 0;
    this.#last = now;
    this.#tokens = tokens;
    return waitMs;
  }

  /** Takes one token if one is available now and reports whether it did (`Limiter.Allow()`). */
  allow(): boolean {
    if (this.qps === Number.POSITIVE_INFINITY) return true;
    const now = this.#clock.now();
    const tokens = this.tokensAt(now) - 1;
    if (tokens < 0) return false;
    this.#last = now;
    this.#tokens = tokens;
    return true;
  }
}

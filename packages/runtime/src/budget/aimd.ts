/**
 * The budget's rate under throttling: additive increase, multiplicative decrease (AIMD, as TCP congestion
 * control and client-side throttling in AWS SDKs' adaptive retry mode). A throttle answer from the cloud
 * multiplies the rate by `decrease` (at most once per `holdMs`, so one burst of 429s counts once), down to
 * `floorQps`; every `increaseIntervalMs` without a throttle adds `increaseFraction` of the configured rate, up
 * to the configured rate. Times in epoch ms, rates in calls per second.
 */
export interface AimdOptions {
  /** The configured rate (the ceiling). */
  qps: number;
  /** The lowest rate a decrease reaches. */
  floorQps: number;
  /** Factor applied on a throttle, in (0, 1). */
  decrease: number;
  /** Share of the configured rate added per interval without throttling, in (0, 1]. */
  increaseFraction: number;
  /** Milliseconds without a throttle per additive step. */
  increaseIntervalMs: number;
  /** Throttles within this many ms of a decrease do not lower the rate again. */
  holdMs: number;
}

export class AimdRate {
  readonly #o: AimdOptions;
  #rate: number;
  /** When the current recovery interval began (the last throttle or the last step). */
  #since: number;
  #lastDecrease = Number.NEGATIVE_INFINITY;

  constructor(options: AimdOptions, now: number) {
    this.#o = options;
    this.#rate = options.qps;
    this.#since = now;
  }

  /** The rate at `now`, after the additive steps due since the last throttle. */
  rate(now: number): number {
    const { qps, increaseFraction, increaseIntervalMs } = this.#o;
    if (this.#rate >= qps) {
      this.#since = now;
      return this.#rate;
    }
    const steps = Math.floor((now - this.#since) / increaseIntervalMs);
    if (steps > 0) {
      this.#rate = Math.min(qps, this.#rate + steps * increaseFraction * qps);
      this.#since += steps * increaseIntervalMs;
    }
    return this.#rate;
  }

  /** Records a throttle at `now`; returns true when it lowered the rate. */
  throttled(now: number): boolean {
    this.rate(now);
    this.#since = now;
    if (now - this.#lastDecrease < this.#o.holdMs) return false;
    this.#lastDecrease = now;
    const lowered = Math.max(this.#o.floorQps, this.#rate * this.#o.decrease);
    const changed = lowered < this.#rate;
    this.#rate = lowered;
    return changed;
  }
}

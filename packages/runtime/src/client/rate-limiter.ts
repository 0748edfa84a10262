/**
 * The client-side request limiter (client-go `flowcontrol.NewTokenBucketRateLimiter`, driven by
 * `--kube-api-qps`/`--kube-api-burst`): a token bucket of `burst` tokens refilled at `qps` per second,
 * one token per request. Each wait reserves its token at once, so waiters go in arrival order.
 */
import type { Clock } from '../clock/clock.js';
import { sleep as defaultSleep } from '../wait/sleep.js';
import { TokenBucket } from '../token-bucket/token-bucket.js';

/** The client-side request limiter of one {@link RestTransport}; see the module notes. */
export class ClientRateLimiter {
  readonly #bucket: TokenBucket;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<boolean>;

  /**
   * @param qps tokens per second, > 0.
   * @param burst bucket size, an integer ≥ 1; the bucket starts full.
   * @throws RangeError naming `qps` or `burst` when invalid.
   */
  constructor(
    qps: number,
    burst: number,
    opts: { clock?: Clock; sleep?: (ms: number, signal?: AbortSignal) => Promise<boolean> } = {},
  ) {
    this.#bucket = new TokenBucket(qps, burst, opts.clock);
    this.#sleep = opts.sleep ?? defaultSleep;
  }

  /** Tokens added per second. */
  get qps(): number {
    return this.#bucket.qps;
  }

  /** Bucket size: requests that may go at once after an idle period. */
  get burst(): number {
    return this.#bucket.burst;
  }

  /** Takes a token if one is available now; never waits. */
  tryAccept(): boolean {
    return this.#bucket.allow();
  }

  /**
   * Takes a token, waiting as long as needed (resolves at once when one is available).
   * @throws the signal's reason when `signal` aborts first.
   */
  async wait(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const ms = this.#bucket.reserve();
    if (ms <= 0) return;
    if (!(await this.#sleep(ms, signal))) signal?.throwIfAborted();
  }
}

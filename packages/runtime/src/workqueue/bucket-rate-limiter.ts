/**
 * An overall token bucket (not per item), as client-go `BucketRateLimiter` over
 * `golang.org/x/time/rate.Limiter`: every `when` reserves a token and returns the wait until it is due,
 * so a burst of failures is spread out at `qps` once `burst` tokens are used up.
 */
import { type Clock, realClock } from '../clock/clock.js';
import { TokenBucket } from '../token-bucket/token-bucket.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * An overall token-bucket rate limiter (client-go `workqueue.BucketRateLimiter`).
 * @param qps - tokens added per second (> 0).
 * @param burst - bucket size (integer ≥ 1); the bucket starts full.
 * @param clock - time source (default real time).
 * @returns a limiter whose `numRequeues` is always 0 and whose `forget` does nothing, as upstream.
 * @throws RangeError when `qps` ≤ 0 or `burst` < 1.
 */
export function bucketRateLimiter<T = unknown>(qps: number, burst: number, clock: Clock = realClock): RateLimiter<T> {
  const bucket = new TokenBucket(qps, burst, clock);
  return {
    when: () => bucket.reserve(),
    forget: () => {},
    numRequeues: () => 0,
  };
}

/**
 * Per source+object throttling of events (client-go `EventSourceObjectSpamFilter`): each key gets a
 * token bucket (default burst 25, refilled at 1 token per 300 s); an event with no token is dropped.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { type Clock, realClock } from '../clock/clock.js';
import { LruCache } from '../lru/lru-cache.js';
import { TokenBucket } from '../token-bucket/token-bucket.js';
import { getSpamKey } from './keys.js';

export class EventSourceObjectSpamFilter {
  readonly #cache: LruCache<string, TokenBucket>;

  /**
   * @param lruCacheSize - how many source+object buckets are remembered (least recent evicted).
   * @param burst - events allowed at once per key.
   * @param qps - refill rate in events per second.
   * @param clock - time source.
   * @param spamKeyFunc - the key of an event (default source + involved object).
   * @throws RangeError when `burst` is not an integer ≥ 1 or `qps` is not > 0.
   */
  constructor(
    lruCacheSize: number,
    readonly burst: number,
    readonly qps: number,
    readonly clock: Clock = realClock,
    readonly spamKeyFunc: (e: CoreV1Event) => string = getSpamKey,
  ) {
    if (!Number.isInteger(burst) || burst < 1) throw new RangeError(`burst must be an integer ≥ 1, got ${burst}`);
    if (!(qps > 0)) throw new RangeError(`qps must be > 0, got ${qps}`);
    this.#cache = new LruCache(lruCacheSize);
  }

  /** True when `event` must be dropped (its key has no token left). */
  filter(event: CoreV1Event): boolean {
    const key = this.spamKeyFunc(event);
    let bucket = this.#cache.get(key);
    if (!bucket) bucket = new TokenBucket(this.qps, this.burst, this.clock);
    const drop = !bucket.allow();
    this.#cache.add(key, bucket);
    return drop;
  }
}

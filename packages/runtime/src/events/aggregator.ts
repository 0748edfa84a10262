/**
 * Aggregation of similar events (client-go `EventAggregator`): events that differ only in their
 * message are counted per group; once a group has seen `maxEvents` distinct messages with no gap
 * longer than `maxIntervalMs` between them, further events of the group are replaced by one
 * aggregate event `(combined from similar events): <message>` that is then deduplicated by count.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { type Clock, realClock } from '../clock/clock.js';
import { LruCache } from '../lru/lru-cache.js';
import { eventName, getEventKey } from './keys.js';

interface AggregateRecord {
  localKeys: Set<string>;
  lastTimestamp: number;
}

export class EventAggregator {
  readonly #cache: LruCache<string, AggregateRecord>;

  /**
   * @param lruCacheSize - groups remembered.
   * @param keyFunc - `[aggregateKey, localKey]` of an event.
   * @param messageFunc - the aggregate event's message.
   * @param maxEvents - distinct messages in a group before aggregation.
   * @param maxIntervalMs - a group older than this (since its last event) starts afresh.
   * @param clock - time source.
   */
  constructor(
    lruCacheSize: number,
    readonly keyFunc: (e: CoreV1Event) => [string, string],
    readonly messageFunc: (e: CoreV1Event) => string,
    readonly maxEvents: number,
    readonly maxIntervalMs: number,
    readonly clock: Clock = realClock,
  ) {
    this.#cache = new LruCache(lruCacheSize);
  }

  /**
   * Returns the event to record and its dedup key: `event` itself with its full key, or a new
   * aggregate event with the group key.
   */
  aggregate(event: CoreV1Event): { event: CoreV1Event; key: string } {
    const now = this.clock.now();
    const eventKey = getEventKey(event);
    const [aggregateKey, localKey] = this.keyFunc(event);
    let record = this.#cache.get(aggregateKey);
    if (!record || now - record.lastTimestamp > this.maxIntervalMs) {
      record = { localKeys: new Set(), lastTimestamp: 0 };
    }
    record.localKeys.add(localKey);
    record.lastTimestamp = now;
    this.#cache.add(aggregateKey, record);
    if (record.localKeys.size < this.maxEvents) return { event, key: eventKey };

    // Keep the set below the threshold (upstream drops an arbitrary member).
    const first = record.localKeys.values().next().value as string;
    record.localKeys.delete(first);
    const t = new Date(now);
    const aggregate: CoreV1Event = {
      metadata: { name: eventName(event.involvedObject?.name, now), namespace: event.metadata?.namespace },
      count: 1,
      firstTimestamp: t,
      involvedObject: event.involvedObject,
      lastTimestamp: t,
      message: this.messageFunc(event),
      type: event.type,
      reason: event.reason,
      source: event.source,
    };
    return { event: aggregate, key: aggregateKey };
  }
}

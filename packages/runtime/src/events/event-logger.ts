/**
 * Deduplication of identical events (client-go `eventLogger`): the first occurrence is created; each
 * repeat reuses the stored event's name and first timestamp, increments `count`, and is sent as a
 * strategic merge patch `{ count, lastTimestamp, message }`.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { LruCache } from '../lru/lru-cache.js';
import { formatTime, getEventKey, toDate } from './keys.js';
import type { EventPatch } from './types.js';

interface EventLog {
  count: number;
  firstTimestamp: Date | undefined;
  name: string | undefined;
  resourceVersion: string | undefined;
}

export class EventLogger {
  readonly #cache: LruCache<string, EventLog>;

  /** @param lruCacheSize - distinct events remembered. */
  constructor(lruCacheSize: number) {
    this.#cache = new LruCache(lruCacheSize);
  }

  /**
   * Records an occurrence of `newEvent` under `key`. Returns a copy of the event (updated with the
   * earlier occurrence's name, resourceVersion, first timestamp and count + 1 when it is a repeat) and,
   * for a repeat, the patch to send.
   */
  observe(newEvent: CoreV1Event, key: string): { event: CoreV1Event; patch?: EventPatch } {
    const event: CoreV1Event = { ...newEvent, metadata: { ...newEvent.metadata } };
    const last = this.#cache.get(key);
    let patch: EventPatch | undefined;
    if (last && last.count > 0) {
      event.metadata.name = last.name;
      event.metadata.resourceVersion = last.resourceVersion;
      event.firstTimestamp = last.firstTimestamp;
      event.count = last.count + 1;
      // The two-way merge patch between the event with count 0, epoch lastTimestamp and no message,
      // and the event itself.
      patch = { count: event.count, lastTimestamp: formatTime(event.lastTimestamp) };
      if (event.message) patch.message = event.message;
    }
    this.#cache.add(key, {
      count: event.count ?? 0,
      firstTimestamp: toDate(event.firstTimestamp),
      name: event.metadata.name,
      resourceVersion: event.metadata.resourceVersion,
    });
    return patch ? { event, patch } : { event };
  }

  /** Remembers the server's copy of an event (its name, resourceVersion and count) after a write. */
  updateState(stored: CoreV1Event): void {
    this.#cache.add(getEventKey(stored), {
      count: stored.count ?? 0,
      firstTimestamp: toDate(stored.firstTimestamp),
      name: stored.metadata?.name,
      resourceVersion: stored.metadata?.resourceVersion,
    });
  }
}

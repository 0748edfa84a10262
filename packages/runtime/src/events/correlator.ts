/**
 * The event correlator (client-go `EventCorrelator`, `events_cache.go`): aggregation of similar
 * events, deduplication of identical ones, then the per source+object spam filter.
 *
 * Defaults, as upstream: LRU caches of 4096 entries; aggregation after 10 distinct messages within
 * 10 minutes; spam filter burst 25 refilled at 1 event per 5 minutes.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { type Clock, realClock } from '../clock/clock.js';
import { EventAggregator } from './aggregator.js';
import { EventLogger } from './event-logger.js';
import { eventAggregatorByReason, eventAggregatorByReasonMessage, getSpamKey } from './keys.js';
import { EventSourceObjectSpamFilter } from './spam-filter.js';
import type { EventPatch } from './types.js';

/** Settings of {@link EventCorrelator}; every field is optional (upstream `CorrelatorOptions`). */
export interface CorrelatorOptions {
  /** Size of each LRU cache (default 4096). */
  lruCacheSize?: number;
  /** Spam filter burst per source+object (default 25). */
  burstSize?: number;
  /** Spam filter refill in events per second (default 1/300). */
  qps?: number;
  /** Groups events for aggregation (default: same source, object, type, reason, reporting controller/instance). */
  keyFunc?: (e: CoreV1Event) => [string, string];
  /** The aggregate event's message (default `(combined from similar events): <message>`). */
  messageFunc?: (e: CoreV1Event) => string;
  /** Distinct messages before aggregation (default 10). */
  maxEvents?: number;
  /** Aggregation window in ms since a group's last event (default 600 000). */
  maxIntervalMs?: number;
  /** Spam filter key (default source + involved object). */
  spamKeyFunc?: (e: CoreV1Event) => string;
  /** Time source (default real time). */
  clock?: Clock;
}

/** What to do with an event. */
export interface CorrelateResult {
  /** The event to write (a new event, a repeat carrying the stored name, or an aggregate). */
  event: CoreV1Event;
  /** For a repeat: the patch `{ count, lastTimestamp, message }` to apply instead of a create. */
  patch?: EventPatch;
  /** True when the spam filter dropped the event. */
  skip: boolean;
}

/**
 * client-go `record.EventCorrelator`: aggregates similar events (by default 10 within 10 minutes become one "(combined
 * from similar events)"), turns a repeat into a count patch, and drops events over the per-source spam budget.
 */
export class EventCorrelator {
  readonly #aggregator: EventAggregator;
  readonly #logger: EventLogger;
  readonly #spam: EventSourceObjectSpamFilter;

  /** @throws RangeError when a numeric option is out of range. */
  constructor(options: CorrelatorOptions = {}) {
    const size = options.lruCacheSize ?? 4096;
    const clock = options.clock ?? realClock;
    const maxEvents = options.maxEvents ?? 10;
    const maxIntervalMs = options.maxIntervalMs ?? 600_000;
    if (!Number.isInteger(maxEvents) || maxEvents < 1)
      throw new RangeError(`maxEvents must be an integer ≥ 1, got ${maxEvents}`);
    if (!(maxIntervalMs > 0)) throw new RangeError(`maxIntervalMs must be > 0, got ${maxIntervalMs}`);
    this.#spam = new EventSourceObjectSpamFilter(
      size,
      options.burstSize ?? 25,
      options.qps ?? 1 / 300,
      clock,
      options.spamKeyFunc ?? getSpamKey,
    );
    this.#aggregator = new EventAggregator(
      size,
      options.keyFunc ?? eventAggregatorByReason,
      options.messageFunc ?? eventAggregatorByReasonMessage,
      maxEvents,
      maxIntervalMs,
      clock,
    );
    this.#logger = new EventLogger(size);
  }

  /** Aggregates, deduplicates and filters `event` (which is not modified). */
  correlate(event: CoreV1Event): CorrelateResult {
    const aggregated = this.#aggregator.aggregate(event);
    const observed = this.#logger.observe(aggregated.event, aggregated.key);
    if (this.#spam.filter(observed.event)) return { event: observed.event, skip: true };
    return { event: observed.event, patch: observed.patch, skip: false };
  }

  /** Records the server's copy of a written event, so the next repeat patches it. */
  updateState(stored: CoreV1Event): void {
    this.#logger.updateState(stored);
  }
}

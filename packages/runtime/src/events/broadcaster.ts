/**
 * The event broadcaster (client-go `tools/record` `EventBroadcaster`): recorders hand it events, and
 * it passes each to every started watcher: a sink writer (`startRecordingToSink`, with its own
 * correlator), a structured logger, or any handler. Each watcher has a bounded queue (default 1000);
 * a full queue drops the event with a counted log line, so recording never blocks the caller.
 *
 * Beyond upstream: the retry interval and attempt count are options (tests use small intervals),
 * {@link EventBroadcaster.shutdown} first lets queued events be written for up to a timeout, and a
 * deposed leader's events are dropped (`markProcessDeposed`).
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { isProcessDeposed } from '../leader-election/fence.js';
import { createLogger, type Logger } from '../logging.js';
import { type Clock, realClock } from '../clock/clock.js';
import { sleep } from '../wait/sleep.js';
import { type CorrelatorOptions, EventCorrelator } from './correlator.js';
import { recordToSink } from './record-to-sink.js';
import { newEventRecorder } from './recorder.js';
import type { EventRecorder, EventSink } from './types.js';
import { type EventWatcher, QueuedWatcher } from './watcher.js';

/** Options of {@link EventBroadcaster}. */
export interface EventBroadcasterOptions {
  /** Events each watcher may hold before dropping (default 1000, upstream `maxQueuedEvents`). */
  queueLength?: number;
  /** Write attempts per event (default 12, upstream `maxTriesPerEvent`). */
  maxTriesPerEvent?: number;
  /** Sleep between write attempts in ms (default 10 000, upstream `defaultSleepDuration`). */
  retryIntervalMs?: number;
  /** Settings of the correlator each sink gets. */
  correlator?: CorrelatorOptions;
  /** Time source for event timestamps and the correlator (default real time). */
  clock?: Clock;
  /** Randomness for the first retry sleep (default `Math.random`). */
  random?: () => number;
  /** Where failures are logged (default logger `events`). */
  logger?: Logger;
}

/** Default time {@link EventBroadcaster.shutdown} waits for queued events to be written. */
export const DEFAULT_EVENT_FLUSH_TIMEOUT_MS = 5_000;

/**
 * Records Events for the objects a controller handles (client-go `record.EventBroadcaster`): recorders from
 * {@link EventBroadcaster.newRecorder} queue events, the correlator aggregates repeats and drops spam, and watchers
 * (the API sink, logging) write them off the caller's path.
 */
export class EventBroadcaster {
  readonly #watchers = new Set<QueuedWatcher>();
  readonly #queueLength: number;
  readonly #maxTries: number;
  readonly #intervalMs: number;
  readonly #correlatorOptions: CorrelatorOptions;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #logger: Logger;
  readonly #abort = new AbortController();
  #shutdown: Promise<void> | undefined;
  #seq = 0;
  #droppedByStopped = 0;

  /** @throws RangeError when a numeric option is out of range. */
  constructor(options: EventBroadcasterOptions = {}) {
    this.#queueLength = options.queueLength ?? 1000;
    this.#maxTries = options.maxTriesPerEvent ?? 12;
    this.#intervalMs = options.retryIntervalMs ?? 10_000;
    if (!Number.isInteger(this.#queueLength) || this.#queueLength < 1) {
      throw new RangeError(`queueLength must be an integer ≥ 1, got ${this.#queueLength}`);
    }
    if (!Number.isInteger(this.#maxTries) || this.#maxTries < 1) {
      throw new RangeError(`maxTriesPerEvent must be an integer ≥ 1, got ${this.#maxTries}`);
    }
    if (!(this.#intervalMs >= 0)) throw new RangeError(`retryIntervalMs must be ≥ 0, got ${this.#intervalMs}`);
    this.#correlatorOptions = options.correlator ?? {};
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger ?? createLogger('events');
  }

  /** Events dropped so far by all watchers (full queues and shutdown). */
  get droppedEvents(): number {
    let n = 0;
    for (const w of this.#watchers) n += w.dropped;
    return n + this.#droppedByStopped;
  }

  /** Sends every event to `handler`, one at a time, in order. */
  startEventWatcher(
    handler: (event: CoreV1Event) => void | Promise<void>,
    name = `watcher-${++this.#seq}`,
  ): EventWatcher {
    const w = new QueuedWatcher(name, handler, this.#queueLength, this.#logger);
    if (this.#shutdown) {
      w.stop();
      return w;
    }
    this.#watchers.add(w);
    void w.done.then(() => {
      this.#droppedByStopped += w.dropped;
      this.#watchers.delete(w);
    });
    return w;
  }

  /** Writes every event to `sink` through a new correlator (aggregation, dedup by count, spam filter). */
  startRecordingToSink(sink: EventSink): EventWatcher {
    const correlator = new EventCorrelator({ clock: this.#clock, ...this.#correlatorOptions });
    const options = {
      maxTries: this.#maxTries,
      intervalMs: this.#intervalMs,
      random: this.#random,
      signal: this.#abort.signal,
      logger: this.#logger,
    };
    return this.startEventWatcher((event) => recordToSink(sink, event, correlator, options), 'sink');
  }

  /**
   * Logs every event at `verbosity` as `Event occurred` with object, fieldPath, kind, apiVersion,
   * type, reason and message (upstream `StartStructuredLogging`).
   */
  startStructuredLogging(verbosity: number, logger: Logger = this.#logger): EventWatcher {
    const v = logger.v(verbosity);
    return this.startEventWatcher((e) => {
      const o = e.involvedObject ?? {};
      v.info('Event occurred', {
        object: o.namespace ? `${o.namespace}/${o.name}` : o.name,
        fieldPath: o.fieldPath ?? '',
        kind: o.kind,
        apiVersion: o.apiVersion,
        type: e.type,
        reason: e.reason,
        message: e.message,
      });
    }, 'logging');
  }

  /**
   * A recorder whose events come from `component` (for example `cloud-node-controller`) on `host`.
   * After {@link shutdown}, its events are discarded.
   */
  newRecorder(component: string, host?: string): EventRecorder {
    if (typeof component !== 'string' || component === '') throw new TypeError('component must be a non-empty string');
    return newEventRecorder({ component, host }, (e) => this.#distribute(e), this.#clock, this.#logger);
  }

  /**
   * Stops the broadcaster: recorders' later events are discarded, queued events are written for up to
   * `timeoutMs` (default {@link DEFAULT_EVENT_FLUSH_TIMEOUT_MS}); after that, retry sleeps end and
   * what is left is dropped with a log line. Resolves when done; calling it again returns the same promise.
   */
  shutdown(timeoutMs: number = DEFAULT_EVENT_FLUSH_TIMEOUT_MS): Promise<void> {
    this.#shutdown ??= this.#doShutdown(timeoutMs);
    return this.#shutdown;
  }

  async #doShutdown(timeoutMs: number): Promise<void> {
    const watchers = [...this.#watchers];
    for (const w of watchers) w.stop();
    const flushed = new AbortController();
    const all = Promise.all(watchers.map((w) => w.done)).then(() => true);
    const inTime = await Promise.race([all, sleep(timeoutMs, flushed.signal).then(() => false)]);
    flushed.abort();
    this.#abort.abort();
    if (!inTime) {
      let dropped = 0;
      for (const w of watchers) dropped += w.discard();
      if (dropped > 0) this.#logger.warn('Event broadcaster shut down before queued events were written', { dropped });
    }
  }

  #distribute(event: CoreV1Event): void {
    // A deposed leader is about to exit (docs/decisions/0052-fenced-leader-exits.md): it records nothing more.
    if (isProcessDeposed()) return;
    if (this.#shutdown) {
      this.#logger.v(4).info('Event discarded: broadcaster is shut down', { reason: event.reason });
      return;
    }
    for (const w of this.#watchers) {
      // Each watcher gets its own copy, so no handler sees another's changes.
      w.enqueue({ ...event, metadata: { ...event.metadata } });
    }
  }
}

/**
 * One consumer of a broadcaster: a bounded FIFO of events handled one at a time by an async handler
 * (client-go's broadcaster watchers with `DropIfChannelFull`). Enqueueing never blocks; when the
 * queue is full the event is dropped and counted.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import type { Logger } from '../logging.js';
import { Fifo } from '../workqueue/fifo.js';

/** A running watcher, as returned by the broadcaster's `start*` methods. */
export interface EventWatcher {
  /** Stops accepting events; those already queued are still handled. */
  stop(): void;
  /** Resolves once the watcher has stopped and its queue is empty. */
  readonly done: Promise<void>;
  /** Events dropped because the queue was full (or discarded on shutdown). */
  readonly dropped: number;
}

/** Interval between two "dropped events" log lines of one watcher. */
const DROP_LOG_INTERVAL_MS = 10_000;

export class QueuedWatcher implements EventWatcher {
  readonly done: Promise<void>;
  #resolveDone!: () => void;
  readonly #queue = new Fifo<CoreV1Event>();
  #running = false;
  #stopped = false;
  #dropped = 0;
  #droppedSinceLog = 0;
  #lastDropLog = Number.NEGATIVE_INFINITY;

  constructor(
    readonly name: string,
    private readonly handler: (event: CoreV1Event) => void | Promise<void>,
    private readonly queueLength: number,
    private readonly logger: Logger,
  ) {
    this.done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  get dropped(): number {
    return this.#dropped;
  }

  /** The number of events waiting. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Queues `event`; returns false (and counts a drop) when the watcher is stopped or full. */
  enqueue(event: CoreV1Event): boolean {
    if (this.#stopped) return false;
    if (this.#queue.length >= this.queueLength) {
      this.#countDrop(1, 'queue full');
      return false;
    }
    this.#queue.push(event);
    if (!this.#running) {
      this.#running = true;
      queueMicrotask(() => void this.#run());
    }
    return true;
  }

  stop(): void {
    this.#stopped = true;
    if (!this.#running) this.#resolveDone();
  }

  /** Drops every queued event (after a shutdown timeout) and stops. Returns how many were dropped. */
  discard(): number {
    const n = this.#queue.length;
    while (this.#queue.length > 0) this.#queue.shift();
    if (n > 0) this.#countDrop(n, 'shutdown', true);
    this.stop();
    return n;
  }

  #countDrop(n: number, why: string, force = false): void {
    this.#dropped += n;
    this.#droppedSinceLog += n;
    const now = Date.now();
    if (force || now - this.#lastDropLog >= DROP_LOG_INTERVAL_MS) {
      this.logger.error(undefined, 'Dropped events', {
        watcher: this.name,
        reason: why,
        dropped: this.#droppedSinceLog,
        droppedTotal: this.#dropped,
      });
      this.#lastDropLog = now;
      this.#droppedSinceLog = 0;
    }
  }

  async #run(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const event = this.#queue.shift();
        try {
          await this.handler(event);
        } catch (err) {
          this.logger.error(err, 'Event handler failed', { watcher: this.name });
        }
      }
    } finally {
      this.#running = false;
      if (this.#stopped) this.#resolveDone();
    }
  }
}

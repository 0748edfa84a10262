/**
 * A work queue with client-go semantics (`util/workqueue`: `queue.go`, `delaying_queue.go`,
 * `rate_limiting_queue.go`), for async workers:
 *
 * - **Dedup:** an item is queued at most once; adding a queued ("dirty") item again does nothing.
 * - **Exclusive processing:** an item handed out by {@link Workqueue.get} is "processing" until
 *   {@link Workqueue.done}; it is never handed to a second worker meanwhile. Adding it while it is
 *   processing marks it dirty, and `done` queues it again, so it is processed once more.
 * - **Delays:** {@link Workqueue.addAfter} adds an item later; if it is already waiting, the earlier
 *   deadline wins. {@link Workqueue.addRateLimited} adds after the rate limiter's delay.
 * - **Shutdown:** after {@link Workqueue.shutDown} adds are ignored, waiting (delayed) items are
 *   dropped and timers cleared; `get` still hands out items already queued and then resolves
 *   `undefined`. {@link Workqueue.shutDownWithDrain} also waits until every processing item is done.
 *
 * Items are compared as `Map` keys: by value for strings and numbers, by identity for objects.
 * Metrics (see `./metrics.ts`) are reported only for named queues. All delays are milliseconds.
 */
import { type Clock, realClock } from '../clock/clock.js';
import { MAX_TIMER_DELAY_MS } from '../wait/sleep.js';
import { defaultControllerRateLimiter } from './default-rate-limiters.js';
import { DelayHeap } from './delay-heap.js';
import { Fifo } from './fifo.js';
import { newQueueMetrics, type QueueMetrics } from './metrics.js';
import type { RateLimiter } from './rate-limiter.js';

/** Options of {@link Workqueue}. */
export interface WorkqueueOptions<T> {
  /** The queue name, the `name` label of the workqueue metrics (for example `Nodes`). Empty: no metrics. */
  name?: string;
  /** The limiter for `addRateLimited` (default {@link defaultControllerRateLimiter}). */
  rateLimiter?: RateLimiter<T>;
  /** Time source for delays and metrics (default real time; must advance with timers, as vi fake timers do). */
  clock?: Clock;
}

interface Waiter<T> {
  resolve(item: T | undefined): void;
}

/**
 * client-go `workqueue.TypedRateLimitingInterface`: a deduplicating FIFO where an item being processed is not handed
 * out again until `done`, plus `addAfter` and `addRateLimited`, with the `workqueue_*` metrics.
 */
export class Workqueue<T = string> {
  /** The queue name (the metrics label). */
  readonly name: string;
  /** The limiter used by {@link addRateLimited}, {@link forget} and {@link numRequeues}. */
  readonly rateLimiter: RateLimiter<T>;
  readonly #clock: Clock;
  readonly #metrics: QueueMetrics<T>;
  readonly #queue = new Fifo<T>();
  readonly #dirty = new Set<T>();
  readonly #processing = new Set<T>();
  readonly #waiters = new Set<Waiter<T>>();
  readonly #waiting = new DelayHeap<T>();
  #drainWaiters: Array<() => void> = [];
  #shuttingDown = false;
  #drain = false;
  #timer: NodeJS.Timeout | undefined;
  #timerAt: number | undefined;

  /** @param options - name, rate limiter and clock; a string is taken as the name. */
  constructor(options: WorkqueueOptions<T> | string = {}) {
    const o = typeof options === 'string' ? { name: options } : options;
    this.name = o.name ?? '';
    this.#clock = o.clock ?? realClock;
    this.rateLimiter = o.rateLimiter ?? defaultControllerRateLimiter<T>(this.#clock);
    this.#metrics = newQueueMetrics<T>(this.name, this.#clock);
  }

  /** Marks `item` as needing processing. Ignored after shutdown. @throws TypeError for `undefined`/`null`. */
  add(item: T): void {
    if (item === undefined || item === null) throw new TypeError('workqueue item must not be undefined or null');
    if (this.#shuttingDown) return;
    if (this.#dirty.has(item)) return;
    this.#metrics.add(item);
    this.#dirty.add(item);
    if (this.#processing.has(item)) return;
    this.#queue.push(item);
    this.#dispatch();
  }

  /** The number of items queued and not yet handed out (informational only). */
  len(): number {
    return this.#queue.length;
  }

  /**
   * The next item to process. Waits while the queue is empty. Resolves `undefined` once the queue is
   * shut down and has no queued items left, or when `signal` aborts. Every item received must be
   * passed to {@link done} after processing.
   */
  get(signal?: AbortSignal): Promise<T | undefined> {
    if (this.#queue.length > 0) return Promise.resolve(this.#take());
    if (this.#shuttingDown || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter<T> = {
        resolve: (item) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(item);
        },
      };
      const onAbort = () => {
        if (this.#waiters.delete(waiter)) resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /**
   * Marks `item` as processed. If it was added again while processing, it is queued again.
   * Calling it for an item that is not processing does nothing.
   */
  done(item: T): void {
    if (!this.#processing.has(item)) return;
    this.#metrics.done(item);
    this.#processing.delete(item);
    if (this.#dirty.has(item)) {
      this.#queue.push(item);
      this.#dispatch();
    }
    if (this.#processing.size === 0) this.#releaseDrain();
  }

  /**
   * Stops the queue: later adds are ignored, waiting delayed items are dropped, idle `get` calls
   * resolve `undefined`, and a pending {@link shutDownWithDrain} returns. Safe to call more than once.
   */
  shutDown(): void {
    this.#drain = false;
    this.#stop();
    this.#releaseDrain();
  }

  /**
   * Like {@link shutDown}, then resolves once every item being processed has been passed to
   * {@link done} (items still queued are handed out to workers first). Calling {@link shutDown}
   * meanwhile ends the wait at once.
   */
  shutDownWithDrain(): Promise<void> {
    this.#drain = true;
    this.#stop();
    if (this.#processing.size === 0 || !this.#drain) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  /** True once {@link shutDown} or {@link shutDownWithDrain} has been called. */
  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Adds `item` after `delayMs` milliseconds; ≤ 0 adds it now. If the item is already waiting, the
   * earlier deadline wins. Counts a retry in `workqueue_retries_total`. Ignored after shutdown.
   *
   * @throws TypeError when `delayMs` is not a number (NaN included) or the item is `undefined`/`null`.
   */
  addAfter(item: T, delayMs: number): void {
    if (typeof delayMs !== 'number' || Number.isNaN(delayMs)) {
      throw new TypeError(`delayMs must be a number, got ${String(delayMs)}`);
    }
    if (item === undefined || item === null) throw new TypeError('workqueue item must not be undefined or null');
    if (this.#shuttingDown) return;
    this.#metrics.retry();
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAt = this.#clock.now() + delayMs;
    this.#waiting.insert(item, readyAt);
    this.#schedule();
  }

  /** Adds `item` after the rate limiter's delay for it (which also counts a failure for the item). */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Resets `item`'s failure count in the rate limiter (call after a successful sync). */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  /** The number of failures the rate limiter has counted for `item` since the last {@link forget}. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  #take(): T {
    const item = this.#queue.shift();
    this.#metrics.get(item);
    this.#processing.add(item);
    this.#dirty.delete(item);
    return item;
  }

  #dispatch(): void {
    while (this.#waiters.size > 0 && this.#queue.length > 0) {
      const waiter = this.#waiters.values().next().value as Waiter<T>;
      this.#waiters.delete(waiter);
      waiter.resolve(this.#take());
    }
  }

  #stop(): void {
    if (!this.#shuttingDown) {
      this.#shuttingDown = true;
      this.#metrics.close();
    }
    this.#clearTimer();
    this.#waiting.clear();
    // Waiters exist only while the queue is empty, so they all learn that the queue is done.
    for (const w of this.#waiters) w.resolve(undefined);
    this.#waiters.clear();
  }

  #releaseDrain(): void {
    if (this.#drainWaiters.length === 0) return;
    if (this.#drain && this.#processing.size > 0) return;
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const w of waiters) w();
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = undefined;
  }

  #schedule(): void {
    const at = this.#waiting.peekReadyAt();
    if (at === undefined) {
      this.#clearTimer();
      return;
    }
    if (this.#timer !== undefined && this.#timerAt === at) return;
    this.#clearTimer();
    const delay = Math.min(Math.max(0, at - this.#clock.now()), MAX_TIMER_DELAY_MS);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#fire(), delay);
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = undefined;
    if (this.#shuttingDown) return;
    for (const item of this.#waiting.popReady(this.#clock.now())) this.add(item);
    this.#schedule();
  }
}

/**
 * Workqueue metrics, as component-base `metrics/prometheus/workqueue` (the provider client-go's
 * workqueues use in Kubernetes components), registered once in {@link metricsRegistry}:
 * `workqueue_depth`, `workqueue_adds_total`, `workqueue_queue_duration_seconds`,
 * `workqueue_work_duration_seconds`, `workqueue_unfinished_work_seconds`,
 * `workqueue_longest_running_processor_seconds`, `workqueue_retries_total`, each labelled `name`.
 * Stability BETA (so help texts start with `[BETA] `, as the Kubernetes metrics framework prints them);
 * the duration histograms use upstream's buckets, 1e-6 s × 10^k for k = 0…9.
 *
 * The two "unfinished work" gauges are computed when the registry is scraped (upstream refreshes them
 * every 500 ms), so no timer runs. Queues without a name have no metrics, as upstream.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from '../metrics/registry.js';
import type { Clock } from '../clock/clock.js';

/** Upstream `ExponentialBuckets(10e-7, 10, 10)`. */
export const workqueueDurationBuckets: readonly number[] = Object.freeze([
  1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000,
]);

interface LiveQueue {
  readonly name: string;
  /** Seconds of unfinished work and the longest single one, now. */
  unfinished(): { total: number; longest: number };
}

interface Family {
  depth: Gauge<'name'>;
  adds: Counter<'name'>;
  latency: Histogram<'name'>;
  workDuration: Histogram<'name'>;
  unfinished: Gauge<'name'>;
  longest: Gauge<'name'>;
  retries: Counter<'name'>;
  live: Set<LiveQueue>;
}

let family: Family | undefined;

function refresh(f: Family): void {
  const byName = new Map<string, { total: number; longest: number }>();
  for (const q of f.live) {
    const u = q.unfinished();
    const acc = byName.get(q.name) ?? { total: 0, longest: 0 };
    acc.total += u.total;
    acc.longest = Math.max(acc.longest, u.longest);
    byName.set(q.name, acc);
  }
  for (const [name, u] of byName) {
    f.unfinished.set({ name }, u.total);
    f.longest.set({ name }, u.longest);
  }
}

function getFamily(): Family {
  if (family) return family;
  const registers = [metricsRegistry];
  const labelNames = ['name'] as const;
  const live = new Set<LiveQueue>();
  const f: Family = {
    live,
    depth: new Gauge({
      name: 'workqueue_depth',
      help: '[BETA] Current depth of workqueue',
      labelNames,
      registers,
    }),
    adds: new Counter({
      name: 'workqueue_adds_total',
      help: '[BETA] Total number of adds handled by workqueue',
      labelNames,
      registers,
    }),
    latency: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: '[BETA] How long in seconds an item stays in workqueue before being requested.',
      labelNames,
      buckets: [...workqueueDurationBuckets],
      registers,
    }),
    workDuration: new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: '[BETA] How long in seconds processing an item from workqueue takes.',
      labelNames,
      buckets: [...workqueueDurationBuckets],
      registers,
    }),
    unfinished: new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help:
        "[BETA] How many seconds of work has done that is in progress and hasn't been observed by work_duration. " +
        'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at ' +
        'which this increases.',
      labelNames,
      registers,
      collect() {
        refresh(f);
      },
    }),
    longest: new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: '[BETA] How many seconds has the longest running processor for workqueue been running.',
      labelNames,
      registers,
      collect() {
        refresh(f);
      },
    }),
    retries: new Counter({
      name: 'workqueue_retries_total',
      help: '[BETA] Total number of retries handled by workqueue',
      labelNames,
      registers,
    }),
  };
  family = f;
  return f;
}

/** What a queue reports; a no-op for unnamed queues. */
export interface QueueMetrics<T> {
  add(item: T): void;
  get(item: T): void;
  done(item: T): void;
  retry(): void;
  /** Stops reporting unfinished work (after a final refresh); called on shutdown. */
  close(): void;
}

class NoQueueMetrics<T> implements QueueMetrics<T> {
  add(_item: T): void {}
  get(_item: T): void {}
  done(_item: T): void {}
  retry(): void {}
  close(): void {}
}

class PromQueueMetrics<T> implements QueueMetrics<T>, LiveQueue {
  readonly #f: Family;
  readonly #clock: Clock;
  readonly #addTimes = new Map<T, number>();
  readonly #processingStart = new Map<T, number>();
  readonly #depth;
  readonly #adds;
  readonly #latency;
  readonly #work;
  readonly #retries;

  constructor(
    readonly name: string,
    clock: Clock,
  ) {
    this.#f = getFamily();
    this.#clock = clock;
    this.#depth = this.#f.depth.labels(name);
    this.#adds = this.#f.adds.labels(name);
    this.#latency = this.#f.latency.labels(name);
    this.#work = this.#f.workDuration.labels(name);
    this.#retries = this.#f.retries.labels(name);
    // Make every series visible from the start, as client-go does when it creates a queue.
    this.#f.unfinished.set({ name }, 0);
    this.#f.longest.set({ name }, 0);
    this.#f.live.add(this);
  }

  add(item: T): void {
    this.#adds.inc();
    this.#depth.inc();
    if (!this.#addTimes.has(item)) this.#addTimes.set(item, this.#clock.now());
  }

  get(item: T): void {
    const now = this.#clock.now();
    this.#depth.dec();
    this.#processingStart.set(item, now);
    const added = this.#addTimes.get(item);
    if (added !== undefined) {
      this.#latency.observe((now - added) / 1000);
      this.#addTimes.delete(item);
    }
  }

  done(item: T): void {
    const started = this.#processingStart.get(item);
    if (started !== undefined) {
      this.#work.observe((this.#clock.now() - started) / 1000);
      this.#processingStart.delete(item);
    }
  }

  retry(): void {
    this.#retries.inc();
  }

  unfinished(): { total: number; longest: number } {
    const now = this.#clock.now();
    let total = 0;
    let longest = 0;
    for (const started of this.#processingStart.values()) {
      const age = (now - started) / 1000;
      total += age;
      if (age > longest) longest = age;
    }
    return { total, longest };
  }

  close(): void {
    refresh(this.#f);
    this.#f.live.delete(this);
  }
}

/** Metrics for a queue named `name` (none when `name` is empty). */
export function newQueueMetrics<T>(name: string, clock: Clock): QueueMetrics<T> {
  return name === '' ? new NoQueueMetrics<T>() : new PromQueueMetrics<T>(name, clock);
}

import { BoundedList } from './bounded-list.js';
import type { FakeCloudMethod } from './methods.js';

/** Default capacity of the call log and of every recorded list of {@link FakeCloud}: 10,000 entries. */
export const DEFAULT_CALL_LOG_LIMIT = 10_000;

/** One invocation of a {@link FakeCloud} cloud method, as kept in its {@link CallLog}. */
export interface CallLogEntry {
  /** 1-based sequence number of the invocation, increasing over the fake's life (never reused). */
  readonly seq: number;
  /** The method invoked. */
  readonly method: FakeCloudMethod;
  /** What the call was about: node name, providerID, `namespace/name` of a service, cluster name, …. */
  readonly subject: string;
  /** When the call started, in milliseconds on the fake's clock (`FakeCloudOptions.now`). */
  readonly startMs: number;
  /** When the call settled, in milliseconds on the fake's clock; `undefined` while pending. */
  endMs: number | undefined;
  /** `pending` until the call settles. */
  outcome: 'pending' | 'ok' | 'error';
  /** What the call threw (an injected error, a throttling error, an abort reason, a knob's error, …). */
  error: unknown;
  /** The upstream call names this invocation appended to `FakeCloud.calls` (e.g. `['create', 'get-zone']`). */
  readonly calls: string[];
}

/**
 * The fake's call log: the last `limit` invocations (oldest dropped first) and, without bound on
 * time but bounded by the number of methods, a counter of invocations per method.
 */
export class CallLog {
  readonly #entries: BoundedList<CallLogEntry>;
  readonly #counts = new Map<FakeCloudMethod, number>();
  readonly #inFlight = new Map<FakeCloudMethod, number>();
  readonly #maxInFlight = new Map<FakeCloudMethod, number>();
  #seq = 0;

  /** @param limit - capacity, a positive integer (default {@link DEFAULT_CALL_LOG_LIMIT}). */
  constructor(limit = DEFAULT_CALL_LOG_LIMIT) {
    this.#entries = new BoundedList(limit, 'callLogLimit');
  }

  /** The capacity of the log. */
  get limit(): number {
    return this.#entries.limit;
  }

  /** How many entries were dropped because the log was full (since creation or {@link clear}). */
  get dropped(): number {
    return this.#entries.dropped;
  }

  /** Opens an entry for a new invocation and counts it. */
  begin(method: FakeCloudMethod, subject: string, nowMs: number): CallLogEntry {
    this.#counts.set(method, (this.#counts.get(method) ?? 0) + 1);
    const inFlight = (this.#inFlight.get(method) ?? 0) + 1;
    this.#inFlight.set(method, inFlight);
    this.#maxInFlight.set(method, Math.max(inFlight, this.#maxInFlight.get(method) ?? 0));
    const entry: CallLogEntry = {
      seq: ++this.#seq,
      method,
      subject,
      startMs: nowMs,
      endMs: undefined,
      outcome: 'pending',
      error: undefined,
      calls: [],
    };
    this.#entries.push(entry);
    return entry;
  }

  /** Closes `entry`: `ok` without `error`, `error` with it. */
  end(entry: CallLogEntry, nowMs: number, failed: boolean, error?: unknown): void {
    this.#inFlight.set(entry.method, (this.#inFlight.get(entry.method) ?? 1) - 1);
    entry.endMs = nowMs;
    entry.outcome = failed ? 'error' : 'ok';
    entry.error = failed ? error : undefined;
  }

  /** Copies of the kept entries, oldest first, optionally only those of `method`. */
  entries(method?: FakeCloudMethod): CallLogEntry[] {
    const all = this.#entries.toArray();
    const picked = method === undefined ? all : all.filter((e) => e.method === method);
    return picked.map((e) => ({ ...e, calls: e.calls.slice() }));
  }

  /** Invocations of `method` since creation or {@link clear} (not capped by the log's limit). */
  count(method: FakeCloudMethod): number {
    return this.#counts.get(method) ?? 0;
  }

  /** Invocation counts of every method invoked at least once. */
  counts(): Partial<Record<FakeCloudMethod, number>> {
    return Object.fromEntries(this.#counts) as Partial<Record<FakeCloudMethod, number>>;
  }

  /**
   * The most invocations of `method` that were in flight at the same time since creation or {@link clear}
   * (a call is in flight from its start, before throttle and latency, until it settles). For tests of
   * concurrency limits such as `--concurrent-node-status-updates`.
   */
  maxConcurrency(method: FakeCloudMethod): number {
    return this.#maxInFlight.get(method) ?? 0;
  }

  /** Empties the log and resets the counters (sequence numbers keep increasing; calls in flight stay counted). */
  clear(): void {
    this.#entries.clear();
    this.#counts.clear();
    this.#maxInFlight.clear();
  }
}

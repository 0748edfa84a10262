/**
 * Request coalescing and a TTL cache for list-style reads: callers asking for the same key while a call is in
 * flight share it, and a successful answer is reused for `ttlMs`. Each caller still stops waiting when its own
 * signal aborts; the shared call itself runs to its end (bounded by the guard's timeout) for the others.
 */
import { untilAborted } from '../wait/until-aborted.js';

interface Entry {
  value: unknown;
  expires: number;
}

/** The keyed in-flight calls and cached answers of one guard. */
export class SharedCalls {
  readonly #inflight = new Map<string, Promise<unknown>>();
  readonly #cache = new Map<string, Entry>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The cached answer for `key`, if one younger than its TTL exists. */
  cached(key: string): { value: unknown } | undefined {
    const e = this.#cache.get(key);
    if (!e) return undefined;
    if (this.#now() < e.expires) return { value: e.value };
    this.#cache.delete(key);
    return undefined;
  }

  /**
   * Joins the call in flight for `key`, or starts one with `start`; stores a success for `ttlMs` (0: no cache).
   * @returns the answer and whether this caller joined a call already in flight.
   */
  run<T>(
    key: string,
    ttlMs: number,
    start: () => Promise<T>,
    signal?: AbortSignal,
  ): { joined: boolean; result: Promise<T> } {
    let shared = this.#inflight.get(key) as Promise<T> | undefined;
    const joined = shared !== undefined;
    if (!shared) {
      shared = start().then((value) => {
        if (ttlMs > 0) this.#cache.set(key, { value, expires: this.#now() + ttlMs });
        return value;
      });
      // Callers that gave up no longer await the shared call: never leave its failure unhandled.
      shared.finally(() => this.#inflight.delete(key)).catch(() => {});
      this.#inflight.set(key, shared);
    }
    return { joined, result: untilAborted(shared, signal) };
  }

  /** Drops the cached answer of `key`, or every cached answer. Calls in flight are not affected. */
  invalidate(key?: string): void {
    if (key === undefined) this.#cache.clear();
    else this.#cache.delete(key);
  }
}

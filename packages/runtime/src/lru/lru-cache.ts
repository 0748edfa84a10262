/**
 * A bounded least-recently-used map, as `github.com/golang/groupcache/lru` (used by client-go's
 * event correlator). `get` and `add` make an entry the most recent; adding beyond `maxEntries`
 * evicts the least recent.
 */
export class LruCache<K, V> {
  /** The most entries kept. */
  readonly maxEntries: number;
  readonly #map = new Map<K, V>();

  /**
   * @param maxEntries - the most entries kept; an integer ≥ 1.
   * @throws RangeError when `maxEntries` is not an integer ≥ 1.
   */
  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be an integer ≥ 1, got ${maxEntries}`);
    }
    this.maxEntries = maxEntries;
  }

  /** The number of entries. */
  get size(): number {
    return this.#map.size;
  }

  /** The value for `key` (making it the most recent), or `undefined`. */
  get(key: K): V | undefined {
    if (!this.#map.has(key)) return undefined;
    const value = this.#map.get(key) as V;
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  /** Whether `key` is present, without touching its recency. */
  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Sets `key` to `value` as the most recent entry, evicting the least recent when full. */
  add(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.maxEntries) {
      const oldest = this.#map.keys().next().value as K;
      this.#map.delete(oldest);
    }
  }

  /** Removes `key`. */
  delete(key: K): void {
    this.#map.delete(key);
  }
}

/**
 * An append-only list that keeps at most `limit` items, dropping the oldest first, so a long-running
 * test cannot grow the fake's memory without bound. Appending is O(1).
 */
export class BoundedList<T> {
  /** The most items kept. */
  readonly limit: number;
  #items: T[] = [];
  #start = 0;
  #dropped = 0;

  /**
   * @param limit - the capacity, a positive integer.
   * @param field - the option name used in the error message.
   * @throws RangeError naming `field` when `limit` is not a positive integer.
   */
  constructor(limit: number, field = 'limit') {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`${field}: expected a positive integer, got ${String(limit)}`);
    }
    this.limit = limit;
  }

  /** Appends `item`, dropping the oldest item when full. */
  push(item: T): void {
    if (this.#items.length < this.limit) {
      this.#items.push(item);
      return;
    }
    this.#items[this.#start] = item;
    this.#start = (this.#start + 1) % this.limit;
    this.#dropped++;
  }

  /** How many items are kept now. */
  get size(): number {
    return this.#items.length;
  }

  /** How many items were dropped because the list was full, since creation or the last {@link clear}. */
  get dropped(): number {
    return this.#dropped;
  }

  /** A copy of the kept items, oldest first. */
  toArray(): T[] {
    if (this.#start === 0) return this.#items.slice();
    return this.#items.slice(this.#start).concat(this.#items.slice(0, this.#start));
  }

  /** Removes every item and resets {@link dropped}. */
  clear(): void {
    this.#items = [];
    this.#start = 0;
    this.#dropped = 0;
  }
}

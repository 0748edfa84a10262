/** A first-in first-out list with O(1) push and shift (an array with a moving head). */
export class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** Removes and returns the oldest item; the list must not be empty. */
  shift(): T {
    const item = this.#items[this.#head] as T;
    this.#items[this.#head] = undefined as T;
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** The items, oldest first. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = this.#head; i < this.#items.length; i++) yield this.#items[i] as T;
  }
}

/**
 * The waiting room of a delaying queue: items keyed by identity, each with a ready time, ordered by
 * ready time (then by insertion, so equal deadlines keep FIFO order). Re-inserting a waiting item only
 * ever moves its deadline earlier, as client-go's `delaying_queue.go` `insert`.
 */
interface Entry<T> {
  item: T;
  readyAt: number;
  seq: number;
  index: number;
}

export class DelayHeap<T> {
  readonly #heap: Entry<T>[] = [];
  readonly #byItem = new Map<T, Entry<T>>();
  #seq = 0;

  get size(): number {
    return this.#heap.length;
  }

  /** The earliest ready time, or `undefined` when empty. */
  peekReadyAt(): number | undefined {
    return this.#heap[0]?.readyAt;
  }

  /** Adds `item` ready at `readyAt`, or moves an existing entry earlier (a later deadline is ignored). */
  insert(item: T, readyAt: number): void {
    const existing = this.#byItem.get(item);
    if (existing) {
      if (existing.readyAt > readyAt) {
        existing.readyAt = readyAt;
        this.#up(existing.index);
      }
    } else {
      const e: Entry<T> = { item, readyAt, seq: this.#seq++, index: this.#heap.length };
      this.#heap.push(e);
      this.#byItem.set(item, e);
      this.#up(e.index);
    }
  }

  /** Removes and returns every item ready at or before `now`, earliest first. */
  popReady(now: number): T[] {
    const out: T[] = [];
    while (this.#heap.length > 0 && (this.#heap[0] as Entry<T>).readyAt <= now) {
      const top = this.#heap[0] as Entry<T>;
      const last = this.#heap.pop() as Entry<T>;
      if (this.#heap.length > 0) {
        this.#heap[0] = last;
        last.index = 0;
        this.#down(0);
      }
      this.#byItem.delete(top.item);
      out.push(top.item);
    }
    return out;
  }

  /** Whether `item` is waiting. */
  has(item: T): boolean {
    return this.#byItem.has(item);
  }

  clear(): void {
    this.#heap.length = 0;
    this.#byItem.clear();
  }

  #less(a: Entry<T>, b: Entry<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const a = this.#heap[i] as Entry<T>;
    const b = this.#heap[j] as Entry<T>;
    this.#heap[i] = b;
    this.#heap[j] = a;
    b.index = i;
    a.index = j;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#heap[i] as Entry<T>, this.#heap[parent] as Entry<T>)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < n && this.#less(this.#heap[l] as Entry<T>, this.#heap[min] as Entry<T>)) min = l;
      if (r < n && this.#less(this.#heap[r] as Entry<T>, this.#heap[min] as Entry<T>)) min = r;
      if (min === i) return;
      this.#swap(i, min);
      i = min;
    }
  }
}

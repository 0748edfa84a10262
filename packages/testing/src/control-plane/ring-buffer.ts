/**
 * Bounded in-memory buffer of a child process's output, kept so a failed start can show what the
 * process printed. Keeps the most recent `maxBytes` bytes; the oldest are dropped first.
 */
export class OutputRingBuffer {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;

  /** @param maxBytes upper bound of retained bytes (default 64 KiB). */
  constructor(readonly maxBytes = 64 * 1024) {
    if (!Number.isInteger(maxBytes) || maxBytes <= 0) {
      throw new Error(`maxBytes must be a positive integer, got ${maxBytes}`);
    }
  }

  /** Appends a chunk; a chunk larger than `maxBytes` is cut to its last `maxBytes` bytes. */
  push(chunk: Buffer | string): void {
    let b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (b.length > this.maxBytes) b = b.subarray(b.length - this.maxBytes);
    this.#chunks.push(b);
    this.#bytes += b.length;
    while (this.#bytes > this.maxBytes) {
      const excess = this.#bytes - this.maxBytes;
      const first = this.#chunks[0]!;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#bytes -= first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#bytes -= excess;
      }
    }
  }

  /** Number of retained bytes. */
  get size(): number {
    return this.#bytes;
  }

  /** The retained output as UTF-8 text. */
  toString(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

/**
 * A bitmap over indexes 0…size-1 that holds memory only for the 32 768-index chunks with a bit set, so a
 * pool of 2^24 IPv4 /32 blocks costs nothing until used (upstream's `cidrset` holds a `big.Int`).
 */
const CHUNK_BITS = 1 << 15;

export class ChunkedBitmap {
  readonly #chunks = new Map<number, Uint32Array>();

  /** True when bit `i` is set. */
  get(i: number): boolean {
    const chunk = this.#chunks.get(Math.floor(i / CHUNK_BITS));
    if (chunk === undefined) return false;
    const bit = i % CHUNK_BITS;
    return (chunk[bit >>> 5]! & (1 << (bit & 31))) !== 0;
  }

  /** Sets bit `i` to `value`; returns true when it changed. */
  set(i: number, value: boolean): boolean {
    const key = Math.floor(i / CHUNK_BITS);
    let chunk = this.#chunks.get(key);
    if (chunk === undefined) {
      if (!value) return false;
      chunk = new Uint32Array(CHUNK_BITS / 32);
      this.#chunks.set(key, chunk);
    }
    const bit = i % CHUNK_BITS;
    const mask = 1 << (bit & 31);
    const word = chunk[bit >>> 5]!;
    if (((word & mask) !== 0) === value) return false;
    chunk[bit >>> 5] = value ? word | mask : word & ~mask;
    return true;
  }
}

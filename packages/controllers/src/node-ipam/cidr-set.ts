/**
 * One pool of node CIDRs: the blocks of `nodeMaskSize` bits inside a cluster CIDR, handed out in address order
 * from the block after the last one handed out. Follows upstream
 * `k8s.io/kubernetes pkg/controller/nodeipam/ipam/cidrset/cidr_set.go` (`CidrSet`): `AllocateNext`, `Occupy`,
 * `Release`, the index arithmetic and the counters behind the `cidrset_*` metrics.
 */
import { type CIDR, formatCIDR, formatIP, parseCIDR } from '@ccm-kit/cloud-provider';
import { ChunkedBitmap } from './bitmap.js';
import { type CidrSetMetrics, cidrSetMetrics } from './metrics.js';

/**
 * An IPv6 pool may not span more than 2^16 node blocks (upstream `clusterSubnetMaxDiff`): the node mask is at
 * most 16 bits longer than the cluster CIDR's.
 */
export const IPV6_MAX_MASK_DIFF = 16;

/** Every block of the pool is in use (upstream `ErrCIDRRangeNoCIDRsRemaining`, same message). */
export class NoCIDRsRemainingError extends Error {
  constructor(readonly clusterCIDR: string) {
    super('CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range');
    this.name = 'NoCIDRsRemainingError';
  }
}

/** A CIDR that does not overlap the pool's cluster CIDR (upstream's `cidr … is out the range of cluster cidr …`). */
export class CIDROutOfRangeError extends Error {
  constructor(cidr: string, clusterCIDR: string) {
    super(`cidr ${cidr} is out the range of cluster cidr ${clusterCIDR}`);
    this.name = 'CIDROutOfRangeError';
  }
}

/** The address of `cidr`'s first (`which = 'network'`) or last IP as an integer of the family's width. */
function addressValue(cidr: CIDR, which: 'network' | 'last'): bigint {
  const bytes = cidr[which].bytes;
  let v = 0n;
  for (let i = cidr.family === 4 ? 12 : 0; i < 16; i++) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
}

function addressText(value: bigint, family: 4 | 6): string {
  if (family === 4) {
    return [24n, 16n, 8n, 0n].map((s) => ((value >> s) & 0xffn).toString()).join('.');
  }
  const bytes = new Uint8Array(16);
  for (let i = 15; i >= 0; i--) {
    bytes[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return formatIP({ bytes, family: 6 });
}

/** A pool of node CIDRs cut from one cluster CIDR. */
export class CidrSet {
  /** The cluster CIDR as Go prints it (`10.244.0.0/16`): the metrics' `clusterCIDR` label. */
  readonly label: string;
  /** The number of node blocks in the pool: 2^(nodeMaskSize − cluster prefix). */
  readonly maxCIDRs: number;
  readonly #cluster: CIDR;
  readonly #width: number;
  readonly #base: bigint;
  readonly #shift: bigint;
  readonly #used = new ChunkedBitmap();
  readonly #metrics: CidrSetMetrics;
  #allocated = 0;
  #nextCandidate = 0;

  /**
   * @param clusterCIDR the pool's range (one `--cluster-cidr` item).
   * @param nodeMaskSize the prefix length of each node block (`--node-cidr-mask-size*`), ≥ the cluster prefix.
   * @param metrics where the `cidrset_*` series go (default: the manager's registry).
   * @throws RangeError when `nodeMaskSize` is shorter than the cluster prefix or longer than the family's width,
   *   or, for IPv6, more than {@link IPV6_MAX_MASK_DIFF} bits longer than the cluster prefix (upstream
   *   `ErrCIDRSetSubNetTooBig`).
   */
  constructor(
    clusterCIDR: CIDR,
    readonly nodeMaskSize: number,
    metrics: CidrSetMetrics = cidrSetMetrics(),
  ) {
    this.#width = clusterCIDR.family === 4 ? 32 : 128;
    const diff = nodeMaskSize - clusterCIDR.prefix;
    if (!Number.isInteger(nodeMaskSize) || diff < 0 || nodeMaskSize > this.#width) {
      throw new RangeError(
        `node CIDR mask size ${nodeMaskSize} must be between the cluster CIDR's /${clusterCIDR.prefix} and /${this.#width}`,
      );
    }
    if (clusterCIDR.family === 6 && diff > IPV6_MAX_MASK_DIFF) {
      throw new RangeError('New CIDR set failed; the node CIDR size is too big');
    }
    this.#cluster = clusterCIDR;
    this.label = formatCIDR(clusterCIDR);
    this.maxCIDRs = 2 ** diff;
    this.#base = addressValue(clusterCIDR, 'network');
    this.#shift = BigInt(this.#width - nodeMaskSize);
    this.#metrics = metrics;
    metrics.maxCIDRs.set({ clusterCIDR: this.label }, this.maxCIDRs);
  }

  /** The IP family of the pool. */
  get family(): 4 | 6 {
    return this.#cluster.family;
  }

  /** How many blocks are in use. */
  get allocatedCount(): number {
    return this.#allocated;
  }

  /** The node block at `index` (0 = the cluster CIDR's first block). */
  blockAt(index: number): CIDR {
    const value = this.#base | (BigInt(index) << this.#shift);
    return parseCIDR(`${addressText(value, this.family)}/${this.nodeMaskSize}`);
  }

  /** True when the block at `index` is in use. */
  isUsed(index: number): boolean {
    return this.#used.get(index);
  }

  /**
   * Marks the first free block at or after the one following the last allocation (wrapping around) as used.
   * @throws NoCIDRsRemainingError when every block is in use.
   */
  allocateNext(): { cidr: CIDR; index: number } {
    if (this.#allocated === this.maxCIDRs) throw new NoCIDRsRemainingError(this.label);
    let candidate = this.#nextCandidate;
    let tries = 0;
    while (this.#used.get(candidate)) {
      candidate = (candidate + 1) % this.maxCIDRs;
      tries++;
    }
    this.#nextCandidate = (candidate + 1) % this.maxCIDRs;
    this.#used.set(candidate, true);
    this.#allocated++;
    const labels = { clusterCIDR: this.label };
    this.#metrics.allocations.inc(labels);
    this.#metrics.tries.observe(labels, tries);
    this.#updateUsage();
    return { cidr: this.blockAt(candidate), index: candidate };
  }

  /**
   * The indexes of the blocks `cidr` covers, inclusive: every block of the pool when `cidr` contains the cluster
   * CIDR, else the blocks holding its first and last address (upstream `getBeginningAndEndIndices`).
   * @throws CIDROutOfRangeError when `cidr` and the cluster CIDR do not overlap (other family included).
   */
  indexRange(cidr: CIDR): [number, number] {
    const cluster = this.#cluster;
    const shorter = Math.min(cidr.prefix, cluster.prefix);
    const overlap =
      cidr.family === cluster.family &&
      addressValue(cidr, 'network') >> BigInt(this.#width - shorter) ===
        addressValue(cluster, 'network') >> BigInt(this.#width - shorter);
    if (!overlap) throw new CIDROutOfRangeError(formatCIDR(cidr), this.label);
    if (cidr.prefix <= cluster.prefix) return [0, this.maxCIDRs - 1];
    const index = (which: 'network' | 'last') =>
      Number(((addressValue(cidr, which) ^ this.#base) >> this.#shift) & BigInt(this.maxCIDRs - 1));
    return [index('network'), index('last')];
  }

  /**
   * Marks every block `cidr` covers as used; blocks already used stay so and are not counted twice.
   * @throws CIDROutOfRangeError (nothing marked).
   */
  occupy(cidr: CIDR): void {
    this.#markRange(cidr, true);
  }

  /** Marks the block at `index` as used; returns true when it was free. */
  occupyIndex(index: number): boolean {
    return this.#markOne(index, true);
  }

  /**
   * Returns every block `cidr` covers to the pool; free blocks stay free and are not counted twice.
   * @throws CIDROutOfRangeError (nothing released).
   */
  release(cidr: CIDR): void {
    this.#markRange(cidr, false);
  }

  /** Returns the block at `index` to the pool; returns true when it was used. */
  releaseIndex(index: number): boolean {
    return this.#markOne(index, false);
  }

  #markRange(cidr: CIDR, used: boolean): void {
    const [begin, end] = this.indexRange(cidr);
    for (let i = begin; i <= end; i++) this.#mark(i, used);
    this.#updateUsage();
  }

  #markOne(index: number, used: boolean): boolean {
    const changed = this.#mark(index, used);
    if (changed) this.#updateUsage();
    return changed;
  }

  /** Sets one block's bit and its counter; returns true when it changed. */
  #mark(index: number, used: boolean): boolean {
    if (!this.#used.set(index, used)) return false;
    this.#allocated += used ? 1 : -1;
    (used ? this.#metrics.allocations : this.#metrics.releases).inc({ clusterCIDR: this.label });
    return true;
  }

  #updateUsage(): void {
    this.#metrics.usage.set({ clusterCIDR: this.label }, this.#allocated / this.maxCIDRs);
  }
}

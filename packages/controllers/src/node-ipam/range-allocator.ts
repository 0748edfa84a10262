/**
 * The pools of node-ipam-controller and who holds each block: one {@link CidrSet} per `--cluster-cidr` item, in
 * order, and for every used block the Node that holds it (or the Service range). Follows upstream
 * `k8s.io/kubernetes pkg/controller/nodeipam/ipam/range_allocator.go` (`occupyCIDRs`, `AllocateOrOccupyCIDR`,
 * `ReleaseCIDR`, `filterOutServiceRange`); beyond upstream it knows each block's holder, so a Node whose CIDR
 * another Node already holds is reported instead of silently sharing it, and a deleted Node releases only the
 * blocks it held (docs/decisions/0104-node-ipam-never-shares-a-cidr.md).
 */
import { type CIDR, formatCIDR, tryParseCIDR } from '@ccm-kit/cloud-provider';
import { CIDROutOfRangeError, CidrSet } from './cidr-set.js';
import type { CidrSetMetrics } from './metrics.js';

/** The holder recorded for blocks of `--service-cluster-ip-range`. */
const SERVICE_RANGE = Symbol('service range');
type Holder = string | typeof SERVICE_RANGE;

/** What the allocator is built from (all already validated, see `node-ipam/config.ts`). */
export interface RangeAllocatorParams {
  /** The cluster CIDRs, in `--cluster-cidr` order: one pool each. */
  clusterCIDRs: readonly CIDR[];
  /** The node block prefix length of each pool, same order. */
  nodeCIDRMaskSizes: readonly number[];
  /** The Service ranges; their blocks are never handed out. */
  serviceCIDRs: readonly CIDR[];
  /** Where the `cidrset_*` series go (default: the manager's registry). */
  metrics?: CidrSetMetrics;
}

/** Why a Node's own podCIDRs are not (all) tracked; the Node keeps them. */
export interface PodCIDRProblem {
  /** The podCIDRs item, as on the Node. */
  cidr: string;
  /** What is wrong, for an Event and the log. */
  message: string;
}

/** What {@link RangeAllocator.allocate} reserved for one Node: its CIDRs and their `[pool, block]` indexes. */
export interface Reservation {
  readonly cidrs: readonly string[];
  readonly blocks: readonly (readonly [number, number])[];
}

/** The pools and their holders. Every method is synchronous, so two workers never see a half-made allocation. */
export class RangeAllocator {
  /** The pools, in `--cluster-cidr` order. */
  readonly sets: readonly CidrSet[];
  readonly #holders: Map<number, Holder>[];
  /** The blocks each Node holds: `[pool, block index]`. */
  readonly #byNode = new Map<string, [number, number][]>();

  /** @throws RangeError from {@link CidrSet} for a mask size the pool cannot use. */
  constructor(params: RangeAllocatorParams) {
    this.sets = params.clusterCIDRs.map((c, i) => new CidrSet(c, params.nodeCIDRMaskSizes[i]!, params.metrics));
    this.#holders = this.sets.map(() => new Map());
    for (const service of params.serviceCIDRs) this.#reserveServiceRange(service);
  }

  /** Marks the blocks of a Service range that overlaps a pool as used (upstream `filterOutServiceRange`). */
  #reserveServiceRange(service: CIDR): void {
    this.sets.forEach((set, i) => {
      let range: [number, number];
      try {
        range = set.indexRange(service);
      } catch {
        return; // no overlap with this pool
      }
      for (let b = range[0]; b <= range[1]; b++) {
        set.occupyIndex(b);
        this.#holders[i]!.set(b, SERVICE_RANGE);
      }
    });
  }

  /**
   * Marks the blocks of a Node's podCIDRs as held by it (upstream `occupyCIDRs`). Every parseable block inside
   * a pool that no one else holds is marked; the rest is reported and left alone (the Node keeps its CIDRs).
   * @returns the problems, empty when every item is tracked: not a CIDR, more items than pools, outside its
   *   pool, or a block another Node or the Service range holds.
   */
  occupyNode(name: string, podCIDRs: readonly string[]): PodCIDRProblem[] {
    const problems: PodCIDRProblem[] = [];
    podCIDRs.forEach((text, i) => {
      const cidr = tryParseCIDR(text);
      const set = this.sets[i];
      if (cidr === undefined) {
        problems.push({ cidr: text, message: `podCIDRs[${i}] ${JSON.stringify(text)} is not a CIDR` });
        return;
      }
      if (set === undefined) {
        problems.push({
          cidr: text,
          message: `podCIDRs[${i}] ${text} has no --cluster-cidr item of its own (${this.sets.length} configured)`,
        });
        return;
      }
      let range: [number, number];
      try {
        range = set.indexRange(cidr);
      } catch (err) {
        if (!(err instanceof CIDROutOfRangeError)) throw err;
        problems.push({ cidr: text, message: `podCIDRs[${i}] ${text} is outside --cluster-cidr ${set.label}` });
        return;
      }
      const holders = this.#holders[i]!;
      const others = new Set<string>();
      for (let b = range[0]; b <= range[1]; b++) {
        const holder = holders.get(b);
        if (holder === undefined) {
          set.occupyIndex(b);
          this.#hold(name, i, b);
        } else if (holder !== name) {
          others.add(holder === SERVICE_RANGE ? '--service-cluster-ip-range' : `Node ${holder}`);
        }
      }
      if (others.size > 0) {
        problems.push({ cidr: text, message: `podCIDRs[${i}] ${text} overlaps what ${[...others].join(', ')} holds` });
      }
    });
    return problems;
  }

  /**
   * Reserves one free block of each pool, in pool order, for the Node (upstream `AllocateOrOccupyCIDR`).
   * @returns the CIDRs as Go prints them (`10.244.3.0/24`), one per pool, and the reserved blocks (for
   *   {@link RangeAllocator.releaseReservation}).
   * @throws NoCIDRsRemainingError when a pool is full; nothing stays reserved then.
   */
  allocate(name: string): Reservation {
    const blocks: [number, number][] = [];
    try {
      const cidrs = this.sets.map((set, i) => {
        const { cidr, index } = set.allocateNext();
        blocks.push([i, index]);
        this.#hold(name, i, index);
        return formatCIDR(cidr);
      });
      return { cidrs, blocks };
    } catch (err) {
      this.releaseReservation(name, { cidrs: [], blocks });
      throw err;
    }
  }

  /** Returns the blocks of one reservation to the pools, if the Node still holds them. */
  releaseReservation(name: string, reservation: Reservation): void {
    for (const [pool, index] of reservation.blocks) {
      if (this.#holders[pool]!.get(index) === name) this.#unhold(name, pool, index);
    }
  }

  #hold(name: string, pool: number, index: number): void {
    this.#holders[pool]!.set(index, name);
    const blocks = this.#byNode.get(name);
    if (blocks) blocks.push([pool, index]);
    else this.#byNode.set(name, [[pool, index]]);
  }

  #unhold(name: string, pool: number, index: number): void {
    this.#holders[pool]!.delete(index);
    this.sets[pool]!.releaseIndex(index);
    const blocks = this.#byNode.get(name)?.filter(([p, b]) => p !== pool || b !== index);
    if (blocks?.length) this.#byNode.set(name, blocks);
    else this.#byNode.delete(name);
  }

  /** Returns every block the Node holds to its pool (upstream `ReleaseCIDR`); blocks others hold stay. */
  releaseNode(name: string): void {
    for (const [pool, index] of this.#byNode.get(name) ?? []) {
      this.#holders[pool]!.delete(index);
      this.sets[pool]!.releaseIndex(index);
    }
    this.#byNode.delete(name);
  }

  /** True when the Node holds a block of some pool. */
  holdsAny(name: string): boolean {
    return this.#byNode.has(name);
  }
}

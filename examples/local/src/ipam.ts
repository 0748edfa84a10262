/**
 * The allocation table of load-balancer addresses: which key (a Service UID) holds which addresses.
 * It lives in memory only; the provider persists each Service's addresses in an annotation on the
 * Service and rebuilds the table from those at start-up (see `allocation-store.ts`), as
 * kube-vip-cloud-provider does, so no database is needed.
 *
 * Changing a Service's addresses is two-phase so that a failed write of the annotation leaks nothing and
 * never hands an address to two Services: {@link Ipam.plan} computes the addresses, {@link Ipam.reserve}
 * adds them to what the key holds (old and new are held together while the annotation is written), then
 * {@link Ipam.set} keeps only the final list (or the previous one, to roll back).
 *
 * Addresses are handed out lowest first; a Service keeps the addresses it has as long as they still fit
 * its request.
 */
import type { PoolConfig } from './config.js';
import { formatIP, type IP, type IPFamily, parseIP, spanContains } from './ip.js';

/** One family of a request; a family that is not `required` is skipped when the pool has no free address of it. */
export interface FamilyRequest {
  readonly family: IPFamily;
  readonly required: boolean;
}

/** What a Service asks for. */
export interface AllocationRequest {
  readonly pool: PoolConfig;
  /** The families wanted, primary first. Ignored when {@link staticIPs} is non-empty. */
  readonly families: readonly FamilyRequest[];
  /** Exact addresses (canonical text), at most one per family, all inside {@link pool}. */
  readonly staticIPs?: readonly string[];
}

/** The pool has no free address of a required family. */
export class PoolExhaustedError extends Error {
  constructor(
    readonly pool: string,
    readonly family: IPFamily,
  ) {
    super(`pool "${pool}" has no free ${family} address`);
    this.name = 'PoolExhaustedError';
  }
}

/** An address is held by another key. */
export class IPConflictError extends Error {
  constructor(
    readonly ip: string,
    readonly holder: string,
  ) {
    super(`address ${ip} is already allocated to another Service (${holder})`);
    this.name = 'IPConflictError';
  }
}

/** The family of a canonical address. */
export function familyOf(ip: string): IPFamily {
  return ip.includes(':') ? 'IPv6' : 'IPv4';
}

/** True when `ip` (text) lies in one of the pool's spans. */
export function poolContains(pool: PoolConfig, ip: string): boolean {
  const parsed = parseIP(ip);
  return parsed !== undefined && pool.spans.some((s) => spanContains(s, parsed));
}

export class Ipam {
  readonly #owner = new Map<string, string>(); // address -> key
  readonly #held = new Map<string, string[]>(); // key -> addresses, in order
  readonly #used: Record<IPFamily, Set<bigint>> = { IPv4: new Set(), IPv6: new Set() }; // for the free search

  /** The key holding `ip` (canonical text), or `undefined` when it is free. */
  holderOf(ip: string): string | undefined {
    return this.#owner.get(ip);
  }

  /** The addresses `key` holds, in order, or `undefined` when it holds none. */
  get(key: string): readonly string[] | undefined {
    const ips = this.#held.get(key);
    return ips && ips.length > 0 ? [...ips] : undefined;
  }

  /** Every key and its addresses. */
  entries(): Array<[string, readonly string[]]> {
    return [...this.#held].map(([k, v]) => [k, [...v]]);
  }

  /** Number of addresses in use. */
  get size(): number {
    return this.#owner.size;
  }

  /**
   * The addresses `key` should hold for `request`, without changing the table: the static addresses, or per
   * family the address it already holds in the pool, else the lowest free one.
   * @throws IPConflictError when a static address is held by another key.
   * @throws PoolExhaustedError when a required family has no free address.
   */
  plan(key: string, request: AllocationRequest): string[] {
    if (request.staticIPs && request.staticIPs.length > 0) {
      for (const ip of request.staticIPs) {
        const holder = this.#owner.get(ip);
        if (holder !== undefined && holder !== key) throw new IPConflictError(ip, holder);
      }
      return [...request.staticIPs];
    }
    const current = this.#held.get(key) ?? [];
    const out: string[] = [];
    for (const { family, required } of request.families) {
      if (out.some((ip) => familyOf(ip) === family)) continue;
      const keep = current.find((ip) => familyOf(ip) === family && poolContains(request.pool, ip));
      const ip = keep ?? this.#lowestFree(request.pool, family);
      if (ip !== undefined) out.push(ip);
      else if (required) throw new PoolExhaustedError(request.pool.name, family);
    }
    return out;
  }

  /**
   * Adds `ips` to what `key` holds (addresses it already holds are kept).
   * @throws IPConflictError, changing nothing, when one is held by another key.
   */
  reserve(key: string, ips: readonly string[]): void {
    for (const ip of ips) {
      const holder = this.#owner.get(ip);
      if (holder !== undefined && holder !== key) throw new IPConflictError(ip, holder);
    }
    const held = this.#held.get(key) ?? [];
    for (const ip of ips) {
      if (!held.includes(ip)) held.push(ip);
      this.#take(ip, key);
    }
    this.#held.set(key, held);
  }

  /**
   * Makes `key` hold exactly `ips`, releasing the rest of what it held.
   * @throws IPConflictError, changing nothing, when one of `ips` is held by another key.
   */
  set(key: string, ips: readonly string[]): void {
    for (const ip of ips) {
      const holder = this.#owner.get(ip);
      if (holder !== undefined && holder !== key) throw new IPConflictError(ip, holder);
    }
    for (const ip of this.#held.get(key) ?? []) if (!ips.includes(ip)) this.#drop(ip);
    if (ips.length === 0) {
      this.#held.delete(key);
      return;
    }
    for (const ip of ips) this.#take(ip, key);
    this.#held.set(key, [...ips]);
  }

  /** Releases everything `key` holds. Idempotent. */
  release(key: string): void {
    this.set(key, []);
  }

  /**
   * Takes the free addresses of `ips` for `key` (re-reading allocations from annotations); addresses held by
   * another key are reported in `conflicts` and not taken.
   */
  claim(key: string, ips: readonly string[]): { claimed: string[]; conflicts: Array<{ ip: string; holder: string }> } {
    const claimed: string[] = [];
    const conflicts: Array<{ ip: string; holder: string }> = [];
    for (const ip of ips) {
      const holder = this.#owner.get(ip);
      if (holder !== undefined && holder !== key) conflicts.push({ ip, holder });
      else claimed.push(ip);
    }
    if (claimed.length > 0) this.reserve(key, claimed);
    return { claimed, conflicts };
  }

  #take(ip: string, key: string): void {
    this.#owner.set(ip, key);
    const parsed = parseIP(ip);
    if (parsed) this.#used[parsed.family].add(parsed.value);
  }

  #drop(ip: string): void {
    this.#owner.delete(ip);
    const parsed = parseIP(ip);
    if (parsed) this.#used[parsed.family].delete(parsed.value);
  }

  #lowestFree(pool: PoolConfig, family: IPFamily): string | undefined {
    const used = this.#used[family];
    for (const span of pool.spans) {
      if (span.family !== family) continue;
      // Each step past `first` skips a used address, so this loop is bounded by the table's size.
      for (let v = span.first; v <= span.last; v++) {
        if (!used.has(v)) return formatIP({ family, value: v } satisfies IP);
      }
    }
    return undefined;
  }
}

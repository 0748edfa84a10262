/**
 * The route controller's memory of its own `NetworkUnavailable` writes, so that a pass does not write a
 * condition again only because the Node cache has not caught up with the previous write yet
 * (docs/decisions/0304-route-condition-written-once-per-cached-version.md).
 *
 * A write is remembered with the `resourceVersion` the cached Node had when the controller decided to write
 * it. A successful write gives the Node a new `resourceVersion`, so as long as the cache still holds that same
 * version the cache is behind the server and the write stands. As soon as the cache holds any other version
 * (the write's echo, or a later change by anyone), the cached condition decides again, as upstream. Versions
 * are compared for equality only (they are opaque strings).
 */
import type { V1Node } from '@kubernetes/client-node';

interface Written {
  /** The cached Node's `resourceVersion` when the write was decided. */
  readonly basedOn: string;
  readonly routesCreated: boolean;
}

/** Per Node name, the last successful condition write the Node cache does not show yet. */
export class ConditionWrites {
  readonly #byNode = new Map<string, Written>();

  /**
   * True when `node` (the cached object) is still the version on which this controller successfully wrote the
   * same outcome: the cache lags behind that write, which needs no repeating. Forgets the write once the cache
   * holds another version.
   */
  awaitingCache(node: V1Node, routesCreated: boolean): boolean {
    const name = node.metadata?.name ?? '';
    const w = this.#byNode.get(name);
    if (!w) return false;
    const rv = node.metadata?.resourceVersion;
    if (rv !== undefined && rv === w.basedOn) return w.routesCreated === routesCreated;
    this.#byNode.delete(name);
    return false;
  }

  /** Remembers a successful write decided on `node` (the cached object); nothing without a `resourceVersion`. */
  written(node: V1Node, routesCreated: boolean): void {
    const name = node.metadata?.name ?? '';
    const rv = node.metadata?.resourceVersion;
    if (rv) this.#byNode.set(name, { basedOn: rv, routesCreated });
    else this.#byNode.delete(name);
  }

  /** Forgets the write of a Node (a failed write). */
  forget(name: string): void {
    this.#byNode.delete(name);
  }

  /** Forgets every Node not in `names` (deleted Nodes), so the memory holds at most one entry per Node. */
  retainOnly(names: ReadonlySet<string>): void {
    for (const name of this.#byNode.keys()) if (!names.has(name)) this.#byNode.delete(name);
  }

  /** How many writes are remembered. */
  get size(): number {
    return this.#byNode.size;
  }
}

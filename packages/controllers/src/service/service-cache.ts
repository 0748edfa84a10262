/**
 * The controller's in-memory record of the last state processed per Service key, used for deletions that the
 * finalizer did not handle and as the list of services a node sync walks.
 * Follows upstream `controllers/service/controller.go` (`serviceCache`, `cachedService`).
 */
import type { V1Service } from '@kubernetes/client-node';

/** One cache entry; `state` is undefined until a service has been processed under this key. */
export interface CachedService {
  state?: V1Service;
}

/** A map from Service key (`namespace/name`) to {@link CachedService}. */
export class ServiceCache {
  readonly #entries = new Map<string, CachedService>();

  /** The entry for `key`, creating an empty one when missing. */
  getOrCreate(key: string): CachedService {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = {};
      this.#entries.set(key, entry);
    }
    return entry;
  }

  /** The entry for `key`, or undefined. */
  get(key: string): CachedService | undefined {
    return this.#entries.get(key);
  }

  /** Replaces the entry for `key`. */
  set(key: string, entry: CachedService): void {
    this.#entries.set(key, entry);
  }

  /** Removes the entry for `key` (no-op when missing). */
  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Every key. */
  listKeys(): string[] {
    return [...this.#entries.keys()];
  }

  /** Upstream `GetByKey`: the entry and whether it exists. */
  getByKey(key: string): { entry: CachedService | undefined; exists: boolean } {
    const entry = this.#entries.get(key);
    return { entry, exists: entry !== undefined };
  }

  /** The state of every entry, including `undefined` for entries never processed. */
  allServices(): (V1Service | undefined)[] {
    return [...this.#entries.values()].map((e) => e.state);
  }

  /** Number of entries. */
  get size(): number {
    return this.#entries.size;
  }
}

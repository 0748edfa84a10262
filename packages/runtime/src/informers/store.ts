/**
 * The informer's local cache with indexes (client-go `cache.Indexer` / `threadSafeMap`). JavaScript
 * is single-threaded, so every method is atomic; readers receive the cached objects themselves and
 * must not mutate them (copy first, as with client-go listers).
 */
import type { Lister } from '@ccm-kit/cloud-provider';
import { metaNamespaceKey, type ObjectWithMeta } from './keys.js';

/** Computes the index values of an object (client-go `IndexFunc`). */
export type IndexFunc<T> = (obj: T) => string[];

/** The name of the built-in namespace index. */
export const namespaceIndex = 'namespace';

/** Index function of the namespace index (cluster-scoped objects index under ''). */
export function metaNamespaceIndexFunc(obj: ObjectWithMeta): string[] {
  return [obj.metadata?.namespace ?? ''];
}

/** A lister with index queries, as an informer exposes it. */
export interface IndexedLister<T> extends Lister<T> {
  /** Cached keys. */
  keys(): string[];
  /** Objects whose index `indexName` has `value`. @throws Error for an unknown index. */
  byIndex(indexName: string, value: string): T[];
  /** Objects in a namespace (uses the namespace index). */
  listNamespace(namespace: string): T[];
  /** Number of cached objects. */
  readonly size: number;
}

/**
 * An informer's indexed cache (client-go `cache.Indexer` over a `ThreadSafeStore`), keyed by `namespace/name` (or
 * `name`).
 */
export class Store<T extends ObjectWithMeta> implements IndexedLister<T> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  /** index name -> index value -> keys */
  readonly #indices = new Map<string, Map<string, Set<string>>>();
  readonly #keyFunc: (obj: T) => string;

  /** @param indexers extra indexes; the namespace index is always present. */
  constructor(indexers: Record<string, IndexFunc<T>> = {}, keyFunc: (obj: T) => string = metaNamespaceKey) {
    this.#keyFunc = keyFunc;
    this.addIndexers({ [namespaceIndex]: metaNamespaceIndexFunc, ...indexers });
  }

  /**
   * Adds indexes; existing objects are indexed at once.
   * @throws Error when an index of that name exists.
   */
  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.#indexers.has(name)) throw new Error(`indexer ${JSON.stringify(name)} already exists`);
      this.#indexers.set(name, fn);
      const index = new Map<string, Set<string>>();
      this.#indices.set(name, index);
      for (const [key, obj] of this.#items) addToIndex(index, fn(obj), key);
    }
  }

  /** The key of an object under this store's key function. */
  keyOf(obj: T): string {
    return this.#keyFunc(obj);
  }

  /** Number of cached objects. */
  get size(): number {
    return this.#items.size;
  }

  /** The cached object with this key, or `undefined`. */
  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  /** Every cached object. */
  list(): T[] {
    return [...this.#items.values()];
  }

  /** Every key. */
  keys(): string[] {
    return [...this.#items.keys()];
  }

  /** Inserts or replaces; returns the previous object. */
  set(key: string, obj: T): T | undefined {
    const old = this.#items.get(key);
    if (old !== undefined) this.#unindex(key, old);
    this.#items.set(key, obj);
    for (const [name, fn] of this.#indexers)
      addToIndex(this.#indices.get(name) as Map<string, Set<string>>, fn(obj), key);
    return old;
  }

  /** Removes; returns the removed object. */
  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    return old;
  }

  /** The objects an index maps `value` to. @throws Error when no index `indexName` exists. */
  byIndex(indexName: string, value: string): T[] {
    const index = this.#indices.get(indexName);
    if (!index) throw new Error(`index ${JSON.stringify(indexName)} does not exist`);
    const keys = index.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const k of keys) {
      const o = this.#items.get(k);
      if (o !== undefined) out.push(o);
    }
    return out;
  }

  /** The objects in `namespace` (through the namespace index). */
  listNamespace(namespace: string): T[] {
    return this.byIndex(namespaceIndex, namespace);
  }

  #unindex(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name) as Map<string, Set<string>>;
      for (const v of fn(obj)) {
        const set = index.get(v);
        if (!set) continue;
        set.delete(key);
        if (set.size === 0) index.delete(v);
      }
    }
  }
}

function addToIndex(index: Map<string, Set<string>>, values: string[], key: string): void {
  for (const v of values) {
    let set = index.get(v);
    if (!set) {
      set = new Set();
      index.set(v, set);
    }
    set.add(key);
  }
}

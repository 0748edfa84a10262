/**
 * An informer over an in-memory map that a test drives, for unit tests of code that takes the
 * cloud-provider `Informer` / `SharedInformers` shapes (client-go `cache.SharedIndexInformer` with a
 * `FakeInformer`-style source, without a watch).
 */
import type {
  DeletedFinalStateUnknown,
  Informer,
  InformerEventHandler,
  Lister,
  SharedInformers,
} from '@ccm-kit/cloud-provider';
import { metaNamespaceKey } from '@ccm-kit/runtime/informers';
import type { V1Node, V1Service } from '@kubernetes/client-node';

/** The part of an object the informer reads: its name and namespace. */
export interface NamedObject {
  /** Only `name` and `namespace` are read. */
  metadata?: { name?: string; namespace?: string };
}

/**
 * An `Informer<T>` whose cache is {@link items}, keyed by the runtime's `metaNamespaceKey` (client-go's
 * `MetaNamespaceKeyFunc`: `namespace/name`, or `name` for cluster-scoped objects; an object without a name
 * throws). `add`, `update` and `remove` change the cache and then call every handler synchronously, in
 * registration order; `set` only fills the cache (an initial list the handlers never saw). Objects are stored
 * as given, not copied.
 */
export class MemoryInformer<T extends NamedObject> implements Informer<T> {
  /** The cache, by key. */
  readonly items = new Map<string, T>();
  /** The registered handlers, in registration order. */
  readonly handlers: InformerEventHandler<T>[] = [];
  /** What `hasSynced()` answers (default `true`). */
  synced = true;
  /** When set, `lister.list()` throws it (a lister that fails). */
  listError: Error | undefined;

  /** Reads {@link items}; `list()` throws {@link listError} when set. */
  readonly lister: Lister<T> = {
    get: (key) => this.items.get(key),
    list: () => {
      if (this.listError) throw this.listError;
      return [...this.items.values()];
    },
  };

  /** Fills the cache with `objs` (see {@link set}). */
  constructor(objs: Iterable<T> = []) {
    this.set(...objs);
  }

  /** Answers {@link synced}. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Registers `handler` (it sees later changes only, not the cache); returns a function that removes it. */
  addEventHandler(handler: InformerEventHandler<T>): () => void {
    this.handlers.push(handler);
    return () => {
      const i = this.handlers.indexOf(handler);
      if (i >= 0) this.handlers.splice(i, 1);
    };
  }

  /** Stores objects without calling handlers (a cache that is already synced). */
  set(...objs: T[]): void {
    for (const o of objs) this.items.set(metaNamespaceKey(o), o);
  }

  /** Stores `obj` and calls `onAdd(obj, isInInitialList)` on every handler. */
  add(obj: T, isInInitialList = false): void {
    this.items.set(metaNamespaceKey(obj), obj);
    for (const h of [...this.handlers]) h.onAdd?.(obj, isInInitialList);
  }

  /**
   * Stores `newObj` and calls `onUpdate(oldObj, newObj)` on every handler. With one argument the old
   * object is the cached one under the same key, and a missing one makes this an {@link add}.
   */
  update(oldObj: T, newObj?: T): void {
    if (newObj === undefined) {
      const cached = this.items.get(metaNamespaceKey(oldObj));
      if (cached === undefined) return this.add(oldObj);
      return this.update(cached, oldObj);
    }
    this.items.set(metaNamespaceKey(newObj), newObj);
    for (const h of [...this.handlers]) h.onUpdate?.(oldObj, newObj);
  }

  /**
   * Removes `obj` (or the object cached under the key `obj`) and calls `onDelete` on every handler, with the
   * object or, when `tombstone` is true, a `DeletedFinalStateUnknown` wrapping it. A key with no cached
   * object does nothing.
   */
  remove(obj: T | string, options: { tombstone?: boolean } = {}): void {
    const key = typeof obj === 'string' ? obj : metaNamespaceKey(obj);
    const removed = typeof obj === 'string' ? this.items.get(key) : obj;
    if (removed === undefined) return;
    this.items.delete(key);
    const arg: T | DeletedFinalStateUnknown<T> = options.tombstone
      ? { key, obj: removed, deletedFinalStateUnknown: true }
      : removed;
    for (const h of [...this.handlers]) h.onDelete?.(arg);
  }
}

/** `SharedInformers` over two {@link MemoryInformer}s, plus the informers themselves for the test to drive. */
export interface MemorySharedInformers extends SharedInformers {
  /** What `nodes()` returns. */
  readonly nodeInformer: MemoryInformer<V1Node>;
  /** What `services()` returns. */
  readonly serviceInformer: MemoryInformer<V1Service>;
}

/** `SharedInformers` whose Node and Service informers are {@link MemoryInformer}s over the given objects. */
export function memoryInformers(
  objects: { nodes?: Iterable<V1Node>; services?: Iterable<V1Service> } = {},
): MemorySharedInformers {
  const nodeInformer = new MemoryInformer<V1Node>(objects.nodes);
  const serviceInformer = new MemoryInformer<V1Service>(objects.services);
  return { nodeInformer, serviceInformer, nodes: () => nodeInformer, services: () => serviceInformer };
}

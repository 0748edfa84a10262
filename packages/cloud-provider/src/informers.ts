/**
 * The minimal informer shapes a provider sees through the {@link InformerUser} hook
 * (upstream passes client-go's `SharedInformerFactory`). `@ccm-kit/runtime`'s shared informer
 * factory implements these; they live here so a provider package depends on nothing else.
 */
import type { V1Node, V1Service } from '@kubernetes/client-node';

/** A read-only view of an informer's local cache. Keys are `name` or `namespace/name`. */
export interface Lister<T> {
  /** The cached object with this key, or `undefined`. */
  get(key: string): T | undefined;
  /** Every cached object. */
  list(): T[];
}

/** A delete whose final state was missed while the watch was down (client-go `DeletedFinalStateUnknown`). */
export interface DeletedFinalStateUnknown<T> {
  /** The `name` or `namespace/name` key the object had in the cache. */
  readonly key: string;
  /** The last state the cache knew, possibly stale. */
  readonly obj: T;
  /** Marks a tombstone, so that a handler can tell it from the object itself. */
  readonly deletedFinalStateUnknown: true;
}

/** Informer event callbacks. Exceptions thrown by handlers are caught, logged and counted. */
export interface InformerEventHandler<T> {
  /** An object entered the cache; `isInInitialList` is true for objects of the first list (client-go `OnAdd`). */
  onAdd?(obj: T, isInInitialList: boolean): void;
  /** An object changed; also called on each resync with `oldObj === newObj` (client-go `OnUpdate`). */
  onUpdate?(oldObj: T, newObj: T): void;
  /** An object left the cache; a tombstone when its final state was missed (client-go `OnDelete`). */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

/** A shared informer over one resource. */
export interface Informer<T> {
  /** Reads the informer's local cache. */
  readonly lister: Lister<T>;
  /** True once the initial list has been delivered to the cache. */
  hasSynced(): boolean;
  /** Adds a handler; returns a function that removes it. */
  addEventHandler(handler: InformerEventHandler<T>): () => void;
}

/** The shared informers of the cloud-controller-manager. */
export interface SharedInformers {
  /** The shared Node informer (cluster-scoped, keys are names). */
  nodes(): Informer<V1Node>;
  /** The shared Service informer (keys are `namespace/name`). */
  services(): Informer<V1Service>;
}

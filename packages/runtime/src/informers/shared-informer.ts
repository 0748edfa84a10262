/**
 * A shared informer (client-go tools/cache `sharedIndexInformer`): a {@link Reflector} keeps a local
 * {@link Store} in step with the API server and tells every registered handler about each change.
 *
 * - Objects are normalised to plain JSON with `apiVersion`/`kind`, then transformed (by default
 *   `metadata.managedFields` is stripped) before they are cached or delivered.
 * - A relist is diffed against the cache: objects that vanished are deleted and their handlers get
 *   a `DeletedFinalStateUnknown` tombstone holding the last known state.
 * - Handler exceptions and rejected promises are caught, logged and counted
 *   (`ccm_kit_informer_handler_errors_total`); they never reach the event loop.
 * - Handlers are called synchronously, in event order. A handler added after the informer has
 *   synced first receives an `onAdd(obj, true)` for every cached object.
 * - With `resyncPeriodMs`, every cached object is re-delivered as `onUpdate(obj, obj)` each period.
 */
import type { DeletedFinalStateUnknown, Informer, InformerEventHandler } from '@ccm-kit/cloud-provider';
import { createLogger, type Logger } from '../logging.js';
import type { ReconnectBackoffOptions } from './backoff.js';
import type { ObjectWithMeta } from './keys.js';
import type { ListerWatcher, ListPage, WatchEvent } from './list-watch.js';
import { informerHandlerErrorsTotal } from './metrics.js';
import { ensureTypeMeta, stripManagedFields, type TransformFunc, toPlainObject } from './normalize.js';
import { Reflector } from './reflector.js';
import { type IndexedLister, type IndexFunc, Store } from './store.js';
import { createTombstone } from './tombstone.js';

/** Options of a {@link SharedInformer}. */
export interface SharedInformerOptions<T> {
  /** For logs and metric labels, usually the collection path (`/api/v1/nodes`). */
  name: string;
  /** How the informer lists and watches. */
  lw: ListerWatcher;
  /** `apiVersion` set on objects that lack it (list items). Default: from the list's own apiVersion. */
  apiVersion?: string;
  /** `kind` set on objects that lack it. Default: the list's kind without the `List` suffix. */
  kind?: string;
  /** Applied to each normalised object before caching; default strips `metadata.managedFields`. */
  transform?: TransformFunc<T>;
  /** Extra indexes besides `namespace`. */
  indexers?: Record<string, IndexFunc<T>>;
  /** Re-deliver every cached object as an update this often (milliseconds); 0 or absent disables. */
  resyncPeriodMs?: number;
  /** LIST page size (default 500). */
  pageSize?: number;
  /** Lower bound of the random watch `timeoutSeconds`, in milliseconds (default 300 000). */
  minWatchTimeoutMs?: number;
  /** Reconnect backoff (defaults 800 ms .. 30 s). */
  backoff?: ReconnectBackoffOptions;
}

type EventName = 'add' | 'update' | 'delete';

/**
 * A shared informer over one resource (client-go `cache.SharedIndexInformer`): a reflector keeps an indexed
 * {@link Store} current, and every handler receives each change in order.
 */
export class SharedInformer<T extends ObjectWithMeta> implements Informer<T> {
  /** For logs and metric labels. */
  readonly name: string;
  readonly #store: Store<T>;
  readonly #handlers = new Set<InformerEventHandler<T>>();
  readonly #transform: TransformFunc<T>;
  readonly #reflector: Reflector;
  readonly #log: Logger;
  readonly #resyncPeriodMs: number;
  readonly #plainJson: boolean;
  #apiVersion: string | undefined;
  #kind: string | undefined;
  #synced = false;
  #syncedWaiters: Array<() => void> = [];
  #running: Promise<void> | undefined;

  constructor(opts: SharedInformerOptions<T>) {
    this.name = opts.name;
    this.#store = new Store<T>(opts.indexers ?? {});
    this.#transform = opts.transform ?? stripManagedFields;
    this.#apiVersion = opts.apiVersion;
    this.#kind = opts.kind;
    this.#resyncPeriodMs = opts.resyncPeriodMs ?? 0;
    this.#plainJson = opts.lw.plainJson === true;
    if (!(this.#resyncPeriodMs >= 0)) throw new RangeError(`resyncPeriodMs must be >= 0, got ${opts.resyncPeriodMs}`);
    this.#log = createLogger('informer').with({ resource: opts.name });
    this.#reflector = new Reflector({
      name: opts.name,
      lw: opts.lw,
      sink: { replace: (items, rv, list) => this.#replace(items, rv, list), event: (ev) => this.#event(ev) },
      ...(opts.pageSize !== undefined ? { pageSize: opts.pageSize } : {}),
      ...(opts.minWatchTimeoutMs !== undefined ? { minWatchTimeoutMs: opts.minWatchTimeoutMs } : {}),
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
    });
  }

  /** The cache, read-only by contract. */
  get lister(): IndexedLister<T> {
    return this.#store;
  }

  /** Adds indexes (also allowed after start). @throws Error when one exists. */
  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    this.#store.addIndexers(indexers);
  }

  /** True once the first list has been stored and delivered to the handlers. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves once synced, or when `signal` aborts (then with `false`). */
  whenSynced(signal?: AbortSignal): Promise<boolean> {
    if (this.#synced) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#syncedWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  /** The resourceVersion last seen from the server. */
  lastSyncResourceVersion(): string {
    return this.#reflector.lastSyncResourceVersion;
  }

  /**
   * Adds a handler; once synced, it first receives `onAdd(obj, true)` for every cached object. Returns a function that
   * removes it.
   */
  addEventHandler(handler: InformerEventHandler<T>): () => void {
    this.#handlers.add(handler);
    if (this.#synced && handler.onAdd) {
      for (const obj of this.#store.list()) this.#call('add', () => handler.onAdd?.(obj, true));
    }
    return () => {
      this.#handlers.delete(handler);
    };
  }

  /**
   * Lists, watches and delivers events until `signal` aborts; resolves then. Never rejects.
   * A second call while running returns the same promise.
   */
  run(signal: AbortSignal): Promise<void> {
    if (this.#running) return this.#running;
    this.#running = (async () => {
      const resync = this.#startResync(signal);
      try {
        await this.#reflector.run(signal);
      } finally {
        if (resync) clearInterval(resync);
      }
    })();
    return this.#running;
  }

  /** For tests: re-open the watch from `resourceVersion` (e.g. `'1'` to provoke a 410 and a relist). */
  restartWatchFrom(resourceVersion: string): void {
    this.#reflector.restartWatchFrom(resourceVersion);
  }

  #startResync(signal: AbortSignal): NodeJS.Timeout | undefined {
    if (this.#resyncPeriodMs <= 0) return undefined;
    const t = setInterval(() => {
      if (signal.aborted || !this.#synced) return;
      for (const obj of this.#store.list()) this.#dispatch('update', (h) => h.onUpdate?.(obj, obj));
    }, this.#resyncPeriodMs);
    t.unref?.();
    return t;
  }

  #normalize(raw: unknown): T {
    // Server JSON is used as is (it is freshly parsed and owned by the cache); anything else is copied.
    const plain = this.#plainJson ? (raw as Record<string, unknown>) : toPlainObject<Record<string, unknown>>(raw);
    ensureTypeMeta(plain, this.#apiVersion, this.#kind);
    try {
      return this.#transform(plain);
    } catch (err) {
      informerHandlerErrorsTotal.inc({ resource: this.name, event: 'transform' });
      this.#log.error(err, 'transform failed; caching the object untransformed');
      return plain as T;
    }
  }

  #replace(items: unknown[], _rv: string, list: Pick<ListPage, 'apiVersion' | 'kind'>): void {
    this.#apiVersion ??= list.apiVersion;
    if (this.#kind === undefined && list.kind?.endsWith('List')) this.#kind = list.kind.slice(0, -4);
    const initial = !this.#synced;
    const seen = new Set<string>();
    for (const raw of items) {
      const obj = this.#normalize(raw);
      let key: string;
      try {
        key = this.#store.keyOf(obj);
      } catch (err) {
        this.#log.error(err, 'listed object without a name; ignored');
        continue;
      }
      seen.add(key);
      const old = this.#store.set(key, obj);
      if (old === undefined) this.#dispatch('add', (h) => h.onAdd?.(obj, initial));
      else this.#dispatch('update', (h) => h.onUpdate?.(old, obj));
    }
    for (const key of this.#store.keys()) {
      if (seen.has(key)) continue;
      const old = this.#store.delete(key) as T;
      const tomb: DeletedFinalStateUnknown<T> = createTombstone(key, old);
      this.#dispatch('delete', (h) => h.onDelete?.(tomb));
    }
    if (!this.#synced) {
      this.#synced = true;
      const waiters = this.#syncedWaiters;
      this.#syncedWaiters = [];
      for (const w of waiters) w();
    }
  }

  #event(ev: WatchEvent): void {
    const obj = this.#normalize(ev.object);
    let key: string;
    try {
      key = this.#store.keyOf(obj);
    } catch (err) {
      this.#log.error(err, 'watch event object without a name; ignored', { type: ev.type });
      return;
    }
    if (ev.type === 'DELETED') {
      this.#store.delete(key);
      this.#dispatch('delete', (h) => h.onDelete?.(obj));
      return;
    }
    const old = this.#store.set(key, obj);
    if (old === undefined) this.#dispatch('add', (h) => h.onAdd?.(obj, false));
    else this.#dispatch('update', (h) => h.onUpdate?.(old, obj));
  }

  #dispatch(event: EventName, fn: (h: InformerEventHandler<T>) => unknown): void {
    for (const h of [...this.#handlers]) this.#call(event, () => fn(h));
  }

  #call(event: EventName, fn: () => unknown): void {
    try {
      const r = fn();
      if (r !== null && typeof r === 'object' && typeof (r as PromiseLike<unknown>).then === 'function') {
        (r as Promise<unknown>).then(undefined, (err: unknown) => this.#handlerFailed(event, err));
      }
    } catch (err) {
      this.#handlerFailed(event, err);
    }
  }

  #handlerFailed(event: EventName, err: unknown): void {
    informerHandlerErrorsTotal.inc({ resource: this.name, event });
    this.#log.error(err, 'informer event handler failed', { event });
  }
}

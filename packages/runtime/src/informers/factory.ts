/**
 * The shared informer factory (client-go `informers.SharedInformerFactory`): one informer per
 * resource (path + namespace + selectors), shared by every controller that asks for it.
 * Implements `SharedInformers` from `@ccm-kit/cloud-provider`.
 *
 * As in client-go, `start(signal)` starts the informers created so far; informers created later
 * start on the next `start` call.
 */
import type { SharedInformers } from '@ccm-kit/cloud-provider';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import type { ClientFactory } from '../client/factory.js';
import type { ReconnectBackoffOptions } from './backoff.js';
import type { ObjectWithMeta } from './keys.js';
import { type ListerWatcher, type ListPage, restListerWatcherOmitting } from './list-watch.js';
import { stripManagedFieldsAndNodeImages, type TransformFunc } from './normalize.js';
import { SharedInformer } from './shared-informer.js';
import type { IndexFunc } from './store.js';
import { waitForCacheSync } from './wait.js';

/** The parameters client-node's typed list methods take, e.g. `core.listNode(params)`. */
export interface ListFnParams {
  /** Page size. */
  limit?: number;
  /** The continue token of the previous page. */
  _continue?: string;
  /** The resourceVersion to list at (`0`: from the watch cache). */
  resourceVersion?: string;
  /** A label selector, as `kubectl -l`. */
  labelSelector?: string;
  /** A field selector, for example `spec.nodeName=node-1`. */
  fieldSelector?: string;
}

/** What client-node's typed list methods return (`V1NodeList`, ...). */
export interface ListFnResult {
  /** The list's `apiVersion` (e.g. `v1`). */
  apiVersion?: string;
  /** The list's `kind` (e.g. `NodeList`). */
  kind?: string;
  /** The list's resourceVersion and continue token (client-node names it `_continue`). */
  metadata?: { resourceVersion?: string; _continue?: string; continue?: string };
  /** The objects of this page. */
  items: unknown[];
}

/** A resource to inform on. */
export interface ResourceInformerOptions<T> {
  /** Cluster-wide collection path, e.g. `/api/v1/nodes` or `/apis/discovery.k8s.io/v1/endpointslices`. */
  path: string;
  /**
   * Optional typed list function, e.g. `(p) => core.listNode(p)`; its results are normalised to
   * plain JSON. Default: a raw LIST of `path` through the client factory.
   */
  listFn?: (params: ListFnParams, signal: AbortSignal) => Promise<ListFnResult>;
  /** Restrict to one namespace (`/api/v1/services` becomes `/api/v1/namespaces/<ns>/services`). */
  namespace?: string;
  /** Only objects matching this label selector. */
  labelSelector?: string;
  /** Only objects matching this field selector. */
  fieldSelector?: string;
  /** `apiVersion`/`kind` set on list items; default derived from the list. */
  apiVersion?: string;
  /** `kind` set on list items; default derived from the list's kind (`NodeList` → `Node`). */
  kind?: string;
  /** Overrides the factory's transform for this resource. */
  transform?: TransformFunc<T>;
  /** Extra indexes of the cache by name (the namespace index is always there). */
  indexers?: Record<string, IndexFunc<T>>;
  /** Overrides the factory's resync period (milliseconds). */
  resyncPeriodMs?: number;
}

/** Options of {@link SharedInformerFactory}. */
export interface SharedInformerFactoryOptions {
  /** Default resync period in milliseconds (0 = none, the default). */
  resyncPeriodMs?: number;
  /**
   * Default transform of every informer (default: strip `metadata.managedFields`; for Nodes also
   * `status.images`, see {@link stripManagedFieldsAndNodeImages}).
   */
  transform?: TransformFunc<unknown>;
  /**
   * Transforms by collection path (for example `{ '/api/v1/nodes': identityTransform }` to keep whole
   * Nodes); they win over `transform` and the defaults, not over a transform passed to `forResource`.
   */
  transforms?: Readonly<Record<string, TransformFunc<unknown>>>;
  /** Client name for the user agent (default `shared-informers`). */
  clientName?: string;
  /** Watch inactivity timeout in milliseconds (default 120 000). */
  watchInactivityTimeoutMs?: number;
  /** Lower bound of the random watch `timeoutSeconds`, in milliseconds (default 300 000). */
  minWatchTimeoutMs?: number;
  /** LIST page size (default 500). */
  pageSize?: number;
  /** How the reflector backs off after a failed list or watch. */
  backoff?: ReconnectBackoffOptions;
}

/** `/api/v1/services` + `ns` -> `/api/v1/namespaces/ns/services`. */
export function namespacedPath(path: string, namespace: string | undefined): string {
  if (!namespace) return path;
  const i = path.lastIndexOf('/');
  if (i <= 0) throw new Error(`path: expected a collection path like /api/v1/services, got ${JSON.stringify(path)}`);
  return `${path.slice(0, i)}/namespaces/${encodeURIComponent(namespace)}${path.slice(i)}`;
}

function listFnListerWatcher(
  base: ListerWatcher,
  listFn: NonNullable<ResourceInformerOptions<unknown>['listFn']>,
  sel: ListFnParams,
): ListerWatcher {
  return {
    async list(req): Promise<ListPage> {
      const res = await listFn(
        {
          ...sel,
          ...(req.limit ? { limit: req.limit } : {}),
          ...(req.continue ? { _continue: req.continue } : {}),
          ...(req.resourceVersion !== undefined ? { resourceVersion: req.resourceVersion } : {}),
        },
        req.signal,
      );
      const cont = res.metadata?._continue ?? res.metadata?.continue;
      return {
        items: res.items ?? [],
        resourceVersion: res.metadata?.resourceVersion ?? '',
        ...(cont ? { continue: cont } : {}),
        ...(res.apiVersion ? { apiVersion: res.apiVersion } : {}),
        ...(res.kind ? { kind: res.kind } : {}),
      };
    },
    watch: (req) => base.watch(req),
    ...(base.waitForServer
      ? { waitForServer: (ms: number, signal: AbortSignal) => base.waitForServer!(ms, signal) }
      : {}),
    ...(base.retryDelayMs ? { retryDelayMs: (ms: number) => base.retryDelayMs!(ms) } : {}),
  };
}

/**
 * One shared informer per resource for the whole process (client-go `informers.SharedInformerFactory`): `nodes()`,
 * `services()`, or any resource by path; `start` runs them, `waitForCacheSync` waits for their first lists.
 */
export class SharedInformerFactory implements SharedInformers {
  readonly #clients: ClientFactory;
  readonly #opts: SharedInformerFactoryOptions;
  readonly #informers = new Map<string, SharedInformer<ObjectWithMeta>>();
  readonly #started = new Map<string, Promise<void>>();

  constructor(clients: ClientFactory, opts: SharedInformerFactoryOptions = {}) {
    this.#clients = clients;
    this.#opts = opts;
  }

  /**
   * The Node informer (`/api/v1/nodes`). With its default transform, watch events are parsed without
   * `metadata.managedFields` and `status.images` (the members that transform drops; the same cached Node).
   */
  nodes(): SharedInformer<V1Node> {
    const byDefault = !(this.#opts.transform || this.#opts.transforms?.['/api/v1/nodes']);
    return this.#forResource<V1Node>(
      {
        path: '/api/v1/nodes',
        apiVersion: 'v1',
        kind: 'Node',
        ...(byDefault ? { transform: stripManagedFieldsAndNodeImages } : {}),
      },
      byDefault ? ['managedFields', 'images'] : [],
    );
  }

  /**
   * The Service informer, all namespaces (`/api/v1/services`). With its default transform, watch events are
   * parsed without `metadata.managedFields`.
   */
  services(): SharedInformer<V1Service> {
    const byDefault = !(this.#opts.transform || this.#opts.transforms?.['/api/v1/services']);
    return this.#forResource<V1Service>(
      { path: '/api/v1/services', apiVersion: 'v1', kind: 'Service' },
      byDefault ? ['managedFields'] : [],
    );
  }

  /**
   * The shared informer for a resource, created on first use. Later calls with the same path,
   * namespace and selectors return the same informer (their other options are ignored).
   * @throws Error naming `path` when it is not an absolute collection path.
   */
  forResource<T extends ObjectWithMeta>(opts: ResourceInformerOptions<T>): SharedInformer<T> {
    return this.#forResource(opts, []);
  }

  /**
   * {@link SharedInformerFactory.forResource}, its watch events parsed without the array members `omit`
   * (`restListerWatcherOmitting`) when this call creates the informer.
   */
  #forResource<T extends ObjectWithMeta>(opts: ResourceInformerOptions<T>, omit: readonly string[]): SharedInformer<T> {
    if (typeof opts.path !== 'string' || !/^\/(api|apis)\/.+[^/]$/.test(opts.path)) {
      throw new Error(`path: expected a collection path like /api/v1/nodes, got ${JSON.stringify(opts.path)}`);
    }
    const path = namespacedPath(opts.path, opts.namespace);
    const id = JSON.stringify([path, opts.labelSelector ?? '', opts.fieldSelector ?? '']);
    const existing = this.#informers.get(id);
    if (existing) return existing as unknown as SharedInformer<T>;
    const rest = restListerWatcherOmitting(
      this.#clients,
      {
        path,
        ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
        ...(opts.fieldSelector ? { fieldSelector: opts.fieldSelector } : {}),
        ...(this.#opts.clientName ? { clientName: this.#opts.clientName } : {}),
        ...(this.#opts.watchInactivityTimeoutMs ? { inactivityTimeoutMs: this.#opts.watchInactivityTimeoutMs } : {}),
      },
      omit,
    );
    const sel: ListFnParams = {
      ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
      ...(opts.fieldSelector ? { fieldSelector: opts.fieldSelector } : {}),
    };
    const lw = opts.listFn ? listFnListerWatcher(rest, opts.listFn, sel) : rest;
    const transform = (opts.transform ?? this.#opts.transforms?.[opts.path] ?? this.#opts.transform) as
      TransformFunc<T> | undefined;
    const resync = opts.resyncPeriodMs ?? this.#opts.resyncPeriodMs;
    const informer = new SharedInformer<T>({
      name:
        path +
        (opts.labelSelector ? `?labelSelector=${opts.labelSelector}` : '') +
        (opts.fieldSelector ? `?fieldSelector=${opts.fieldSelector}` : ''),
      lw,
      ...(opts.apiVersion ? { apiVersion: opts.apiVersion } : {}),
      ...(opts.kind ? { kind: opts.kind } : {}),
      ...(transform ? { transform } : {}),
      ...(opts.indexers ? { indexers: opts.indexers } : {}),
      ...(resync !== undefined ? { resyncPeriodMs: resync } : {}),
      ...(this.#opts.pageSize !== undefined ? { pageSize: this.#opts.pageSize } : {}),
      ...(this.#opts.minWatchTimeoutMs !== undefined ? { minWatchTimeoutMs: this.#opts.minWatchTimeoutMs } : {}),
      ...(this.#opts.backoff ? { backoff: this.#opts.backoff } : {}),
    });
    this.#informers.set(id, informer as unknown as SharedInformer<ObjectWithMeta>);
    return informer;
  }

  /** Starts every informer created so far that is not running; they stop when `signal` aborts. */
  start(signal: AbortSignal): void {
    for (const [id, inf] of this.#informers) {
      if (!this.#started.has(id)) this.#started.set(id, inf.run(signal));
    }
  }

  /** Resolves `true` once every started informer has synced, `false` if `signal` aborts first. */
  waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    const started = [...this.#started.keys()].map((id) => this.#informers.get(id) as SharedInformer<ObjectWithMeta>);
    return waitForCacheSync(signal, ...started);
  }

  /** Resolves when every started informer has stopped (after the start signal aborted). */
  async shutdown(): Promise<void> {
    await Promise.all(this.#started.values());
  }
}

/**
 * Raw-JSON API clients for the writes the controllers and the runtime make: the same methods, request
 * objects, per-call options and HTTP requests as client-node's `CoreV1Api`/`CoordinationV1Api`, without
 * its generated API tree or the `ObjectSerializer` round trip of every body (decision 0031). Bodies are
 * `JSON.stringify`'d as given (a `V1MicroTime` prints its 6 fraction digits through `toISOString`), so
 * fields client-node's models do not know are kept rather than dropped; responses are the server's JSON
 * (timestamps as strings, as informer objects). Errors are client-node's `ApiException` (`code`, `body`
 * = the response text, `headers`).
 *
 * `ClientFactory.client(name, CoreV1Client)` builds one over the shared transport; vendors who want the
 * whole typed API keep using `client(name, CoreV1Api)`. The request plumbing ({@link RawApi},
 * {@link RawApiConfig}) is internal: the public clients hold it in a private field.
 */
import type {
  Configuration,
  ConfigurationOptions,
  CoordinationV1Api,
  CoreV1Api,
  CoreV1Event,
  V1Lease,
  V1Node,
  V1Service,
  V1Status,
} from '@kubernetes/client-node';
import type { AuthRequest } from './lean-kubeconfig.js';
import { RawRequest, type TransportRequest } from './raw-request.js';
import type { TransportResponse } from './transport-response.js';
import { throwForStatus } from './status-error.js';

/** How a raw client reaches the API server. */
export interface RawApiConfig {
  /** Base URL of the API server, without a trailing slash. */
  readonly server: string;
  /** Adds the credentials to a request (sets its `Authorization` header, or its client-certificate dispatcher). */
  authenticate(req: AuthRequest): Promise<void>;
  /**
   * Sends a prepared request (client rate limiter, user agent, timeout, metrics) and resolves with the
   * response whatever its status; {@link RawApi} turns a non-2xx status into client-node's `ApiException`.
   */
  send(req: TransportRequest): Promise<TransportResponse>;
}

/** Marks the classes `ClientFactory.client()` builds from a {@link RawApiConfig}. */
export const rawApiClient: unique symbol = Symbol.for('ccm-kit.rawApiClient');

/** True for a raw client class such as {@link CoreV1Client}. */
export function isRawApiClient(api: unknown): api is new (config: RawApiConfig) => unknown {
  return typeof api === 'function' && (api as unknown as Record<symbol, unknown>)[rawApiClient] === true;
}

/** Where {@link cachedApiClient} gets a client's configuration: a raw config, or a client-node `Configuration`. */
export interface ApiClientSource {
  /** How a raw client of the named client sends. */
  rawConfig(name: string): RawApiConfig;
  /** A client-node `Configuration` for the named client. */
  configuration(name: string): Configuration;
}

/**
 * The API client of class `api` for client `name`, made once per name and class and kept in `cache`: a raw
 * client ({@link isRawApiClient}) gets `source.rawConfig(name)`, a client-node API class
 * `source.configuration(name)`. Shared by the client factory and the app's service-account clients.
 */
export function cachedApiClient<T>(
  cache: Map<string, Map<unknown, unknown>>,
  source: ApiClientSource,
  name: string,
  api: new (...args: never[]) => T,
): T {
  let byApi = cache.get(name);
  if (!byApi) {
    byApi = new Map();
    cache.set(name, byApi);
  }
  let c = byApi.get(api) as T | undefined;
  if (c === undefined) {
    c = isRawApiClient(api)
      ? (new api(source.rawConfig(name)) as T)
      : new (api as unknown as new (cfg: Configuration) => T)(source.configuration(name));
    byApi.set(api, c);
  }
  return c;
}

/** A client-node request object as {@link RawApi.call} reads it. */
type Params = { name?: string; namespace?: string; body?: unknown } & Record<string, unknown>;

/** The optional query parameters of these calls, in the generated client's order. */
const queryParams = [
  'pretty',
  'dryRun',
  'fieldManager',
  'fieldValidation',
  'force',
  'gracePeriodSeconds',
  'ignoreStoreReadErrorWithClusterBreakingPotential',
  'orphanDependents',
  'propagationPolicy',
] as const;

/** Marks per-call options whose caller does not read the response object; see {@link discardResponse}. */
const discardResponseMark: unique symbol = Symbol('ccm-kit.discardResponse');

/**
 * Marks `options` (from `callOptions`/`patchOptions`) for a write whose caller ignores the object the server
 * answers (as upstream's `_, err = client.Update(...)`): a raw client ({@link RawApi}) reads that answer to the
 * end but does not parse it and resolves with `undefined`; client-node's typed API ignores the mark. The request
 * and its error handling are unchanged. Returns `options`.
 */
export function discardResponse(options: ConfigurationOptions): ConfigurationOptions {
  return Object.assign(options, { [discardResponseMark]: true });
}

/** client-node's generated default for PATCH bodies (its first preferred media type); callers override it. */
const defaultPatchContentType = 'application/json-patch+json';

/** The request plumbing the raw-JSON API clients share: one per client, over its {@link RawApiConfig}. */
export class RawApi {
  readonly #config: RawApiConfig;

  /** @param config how to reach the API server (the client factory's, for one client name). */
  constructor(config: RawApiConfig) {
    this.#config = config;
  }

  /**
   * Sends one request as client-node's generated `*Api` method would: the query parameters client-node
   * knows (`pretty`, `dryRun`, `fieldManager`, `force`, …) from `params`, `params.body` as JSON, the
   * per-call `options.middleware`, and the response JSON parsed (`undefined` for an empty body, or when
   * `options` carry {@link discardResponse}'s mark: the body is read but not parsed).
   * @param path the URL path below the server, segments already percent-encoded.
   * @throws client-node's `ApiException` (`code`, `body`, `headers`) for a non-2xx answer; the transport's
   *   error for a network failure or timeout.
   */
  async call<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    params: { name?: string; namespace?: string; body?: unknown } & Record<string, unknown>,
    options?: ConfigurationOptions,
  ): Promise<T> {
    const req = new RawRequest(this.#config.server + path, method);
    for (const k of queryParams) {
      if (params[k] !== undefined) req.setQueryParam(k, String(params[k]));
    }
    await this.#config.authenticate(req);
    req.setHeaderParam('Accept', 'application/json, */*;q=0.8');
    // As the generated client: every call but GET declares a content type, even a DELETE without options.
    if (method !== 'GET')
      req.setHeaderParam('Content-Type', method === 'PATCH' ? defaultPatchContentType : 'application/json');
    if (params.body !== undefined) req.setBody(JSON.stringify(params.body));
    for (const mw of options?.middleware ?? []) await mw.pre(req as never).toPromise();
    const resp = await this.#config.send(req);
    await throwForStatus(resp, `${method} ${path}`);
    if ((options as Record<symbol, unknown> | undefined)?.[discardResponseMark] === true) {
      await resp.bytes();
      return undefined as T;
    }
    const text = await resp.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }
}

const seg = encodeURIComponent;
/** The request parameters of a client-node API method, which the raw clients take unchanged. */
export type ApiMethodParams<M extends (...a: never[]) => unknown> = Parameters<M>[0];

/**
 * The core/v1 calls ccm-kit makes (Nodes, Service reads and status, Events), with `CoreV1Api`'s signatures.
 * `ClientFactory.client(name, CoreV1Client)` builds one.
 */
export class CoreV1Client {
  /** Tells `ClientFactory.client()` to build this class over the factory's transport. */
  static readonly [rawApiClient] = true;
  readonly #api: RawApi;

  /**
   * Not called directly: `ClientFactory.client(name, CoreV1Client)` builds the client over the factory's shared
   * transport, with the client's user agent and credentials.
   */
  constructor(config: never) {
    this.#api = new RawApi(config);
  }

  /** `GET /api/v1/nodes/{name}`. */
  readNode(p: ApiMethodParams<CoreV1Api['readNode']>, o?: ConfigurationOptions): Promise<V1Node> {
    return this.#api.call('GET', `/api/v1/nodes/${seg(p.name)}`, p as Params, o);
  }
  /** `PUT /api/v1/nodes/{name}` (the status is ignored by the server). */
  replaceNode(p: ApiMethodParams<CoreV1Api['replaceNode']>, o?: ConfigurationOptions): Promise<V1Node> {
    return this.#api.call('PUT', `/api/v1/nodes/${seg(p.name)}`, p as Params, o);
  }
  /** `PATCH /api/v1/nodes/{name}`; set the content type with `patchOptions`. */
  patchNode(p: ApiMethodParams<CoreV1Api['patchNode']>, o?: ConfigurationOptions): Promise<V1Node> {
    return this.#api.call('PATCH', `/api/v1/nodes/${seg(p.name)}`, p as Params, o);
  }
  /** `PATCH /api/v1/nodes/{name}/status`. */
  patchNodeStatus(p: ApiMethodParams<CoreV1Api['patchNodeStatus']>, o?: ConfigurationOptions): Promise<V1Node> {
    return this.#api.call('PATCH', `/api/v1/nodes/${seg(p.name)}/status`, p as Params, o);
  }
  /** `DELETE /api/v1/nodes/{name}`. */
  deleteNode(p: ApiMethodParams<CoreV1Api['deleteNode']>, o?: ConfigurationOptions): Promise<V1Status> {
    return this.#api.call('DELETE', `/api/v1/nodes/${seg(p.name)}`, p as Params, o);
  }
  /** `GET /api/v1/namespaces/{namespace}/services/{name}`. */
  readNamespacedService(
    p: ApiMethodParams<CoreV1Api['readNamespacedService']>,
    o?: ConfigurationOptions,
  ): Promise<V1Service> {
    return this.#api.call('GET', `/api/v1/namespaces/${seg(p.namespace)}/services/${seg(p.name)}`, p as Params, o);
  }
  /** `PATCH /api/v1/namespaces/{namespace}/services/{name}/status`. */
  patchNamespacedServiceStatus(
    p: ApiMethodParams<CoreV1Api['patchNamespacedServiceStatus']>,
    o?: ConfigurationOptions,
  ): Promise<V1Service> {
    return this.#api.call(
      'PATCH',
      `/api/v1/namespaces/${seg(p.namespace)}/services/${seg(p.name)}/status`,
      p as Params,
      o,
    );
  }
  /** `POST /api/v1/namespaces/{namespace}/events`. */
  createNamespacedEvent(
    p: ApiMethodParams<CoreV1Api['createNamespacedEvent']>,
    o?: ConfigurationOptions,
  ): Promise<CoreV1Event> {
    return this.#api.call('POST', `/api/v1/namespaces/${seg(p.namespace)}/events`, p as Params, o);
  }
  /** `PATCH /api/v1/namespaces/{namespace}/events/{name}`. */
  patchNamespacedEvent(
    p: ApiMethodParams<CoreV1Api['patchNamespacedEvent']>,
    o?: ConfigurationOptions,
  ): Promise<CoreV1Event> {
    return this.#api.call('PATCH', `/api/v1/namespaces/${seg(p.namespace)}/events/${seg(p.name)}`, p as Params, o);
  }
}

/**
 * The coordination.k8s.io/v1 Lease calls of leader election, with `CoordinationV1Api`'s signatures.
 * `ClientFactory.client(name, CoordinationV1Client)` builds one.
 */
export class CoordinationV1Client {
  /** Tells `ClientFactory.client()` to build this class over the factory's transport. */
  static readonly [rawApiClient] = true;
  readonly #api: RawApi;

  /**
   * Not called directly: `ClientFactory.client(name, CoordinationV1Client)` builds the client over the factory's
   * shared transport, with the client's user agent and credentials.
   */
  constructor(config: never) {
    this.#api = new RawApi(config);
  }

  /** `GET /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}`. */
  readNamespacedLease(
    p: ApiMethodParams<CoordinationV1Api['readNamespacedLease']>,
    o?: ConfigurationOptions,
  ): Promise<V1Lease> {
    return this.#api.call('GET', leasePath(p.namespace, p.name), p as Params, o);
  }
  /** `POST /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases`. */
  createNamespacedLease(
    p: ApiMethodParams<CoordinationV1Api['createNamespacedLease']>,
    o?: ConfigurationOptions,
  ): Promise<V1Lease> {
    return this.#api.call('POST', leasePath(p.namespace), p as Params, o);
  }
  /** `PUT /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}`. */
  replaceNamespacedLease(
    p: ApiMethodParams<CoordinationV1Api['replaceNamespacedLease']>,
    o?: ConfigurationOptions,
  ): Promise<V1Lease> {
    return this.#api.call('PUT', leasePath(p.namespace, p.name), p as Params, o);
  }
}

function leasePath(namespace: string, name?: string): string {
  const base = `/apis/coordination.k8s.io/v1/namespaces/${seg(namespace)}/leases`;
  return name === undefined ? base : `${base}/${seg(name)}`;
}

/**
 * A small client of the Cattle API (the part of go-rancher's `client.RancherClient` the provider uses):
 * collections listed with filters, resources read, created, updated and removed, actions and links followed.
 * HTTP basic authentication with the access key and secret key; the secret is only ever put into the
 * `Authorization` header, never into an error message or a log line.
 */
import type { CattleResource, CollectionName } from './types.js';

/** Where the Cattle API is and how to authenticate (`CATTLE_URL`, `CATTLE_ACCESS_KEY`, `CATTLE_SECRET_KEY`). */
export interface CattleEndpoint {
  /** The API's base URL, for example `http://rancher:8080/v2-beta` (or a project's, `…/v2-beta/projects/1a5`). */
  url: string;
  accessKey: string;
  secretKey: string;
}

/** A Cattle API request that failed: a status other than 2xx, or no answer at all (`status` 0). */
export class CattleApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`Cattle API ${method} ${path}: ${status === 0 ? '' : `${status} `}${detail}`, options);
    this.name = 'CattleApiError';
  }
}

/** Filters of a collection listing: `field=value`, or `<field>_null=1` for "unset" (as go-rancher's `ListOpts`). */
export type Filters = Readonly<Record<string, string>>;

/** Options of {@link CattleClient}. */
export interface CattleClientOptions {
  /** Each request's limit in milliseconds (default 10 000). */
  requestTimeoutMs?: number;
}

/** The Cattle API over HTTP. Every method takes an optional `AbortSignal`; an aborted call rejects. */
export class CattleClient {
  readonly #base: string;
  readonly #authorization: string;
  readonly #timeoutMs: number;

  constructor(endpoint: CattleEndpoint, options: CattleClientOptions = {}) {
    this.#base = endpoint.url.replace(/\/+$/, '');
    this.#authorization = `Basic ${Buffer.from(`${endpoint.accessKey}:${endpoint.secretKey}`).toString('base64')}`;
    this.#timeoutMs = options.requestTimeoutMs ?? 10_000;
  }

  /** The resources of `collection` matching every filter. */
  async list<T extends CattleResource>(collection: CollectionName, filters: Filters, signal?: AbortSignal) {
    const query = new URLSearchParams(filters).toString();
    const body = await this.#request('GET', `${this.#base}/${collection}${query ? `?${query}` : ''}`, signal);
    return (body as { data?: T[] }).data ?? [];
  }

  /** One resource by ID, or `undefined` when the API answers 404. */
  async byId<T extends CattleResource>(collection: CollectionName, id: string, signal?: AbortSignal) {
    try {
      return (await this.#request('GET', `${this.#base}/${collection}/${encodeURIComponent(id)}`, signal)) as T;
    } catch (err) {
      if (err instanceof CattleApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** Creates a resource; resolves with it as the API stored it. */
  async create<T extends CattleResource>(collection: CollectionName, body: object, signal?: AbortSignal) {
    return (await this.#request('POST', `${this.#base}/${collection}`, signal, body)) as T;
  }

  /** Changes fields of a resource (`PUT`, the fields given only). */
  async update<T extends CattleResource>(resource: T, changes: object, signal?: AbortSignal) {
    return (await this.#request('PUT', this.#self(resource), signal, changes)) as T;
  }

  /** Removes a resource; a resource already gone (404) counts as removed. */
  async remove(resource: CattleResource, signal?: AbortSignal): Promise<void> {
    try {
      await this.#request('DELETE', this.#self(resource), signal);
    } catch (err) {
      if (!(err instanceof CattleApiError && err.status === 404)) throw err;
    }
  }

  /**
   * Runs an action the resource offers now (its `actions` map).
   * @throws Error naming the action when the resource does not offer it in its current state.
   */
  async action(resource: CattleResource, action: string, input: object = {}, signal?: AbortSignal) {
    const url = resource.actions?.[action];
    if (!url)
      throw new Error(`${resource.type} ${resource.id} offers no action "${action}" in state ${resource.state}`);
    return (await this.#request('POST', url, signal, input)) as CattleResource;
  }

  /** The resources behind one of the resource's links (for example a host's `ipAddresses`). */
  async link<T extends CattleResource>(resource: CattleResource, link: string, signal?: AbortSignal) {
    const url = resource.links?.[link];
    if (!url) throw new Error(`${resource.type} ${resource.id} has no link "${link}"`);
    return ((await this.#request('GET', url, signal)) as { data?: T[] }).data ?? [];
  }

  #self(resource: CattleResource): string {
    const self = resource.links?.self;
    if (!self) throw new Error(`${resource.type} ${resource.id} has no link "self"`);
    return self;
  }

  async #request(method: string, url: string, signal: AbortSignal | undefined, body?: object): Promise<unknown> {
    signal?.throwIfAborted();
    const path = new URL(url).pathname + new URL(url).search;
    const limit = AbortSignal.timeout(this.#timeoutMs);
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: this.#authorization,
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: signal ? AbortSignal.any([signal, limit]) : limit,
      });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw new CattleApiError(method, path, 0, `no answer: ${(err as Error).message}`, { cause: err });
    }
    const text = await res.text();
    if (!res.ok) throw new CattleApiError(method, path, res.status, errorDetail(text));
    return text ? JSON.parse(text) : undefined;
  }
}

/** The API's error message (Cattle answers `{ type: 'error', code, message }`), else the body's start. */
function errorDetail(text: string): string {
  try {
    const e = JSON.parse(text) as { code?: string; message?: string };
    return [e.code, e.message].filter(Boolean).join(': ') || text.slice(0, 200);
  } catch {
    return text.slice(0, 200);
  }
}

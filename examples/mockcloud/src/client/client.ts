/**
 * A typed client for the mockcloud API. Every call goes through `CloudCallGuard` (`@ccm-kit/runtime/guard`), which
 * gives it what every serious CCM puts in front of its cloud: a concurrency limit, retries with backoff and
 * jitter on 429, 5xx, network errors and timeouts (never on other 4xx), `Retry-After` honoured for the whole
 * client, a per-request timeout combined with the caller's signal, per-operation metrics
 * (`cloudprovider_mockcloud_api_request_*`), and a token re-read once after a 401 so a rotated token file takes
 * effect without a restart. This file adds what is specific to mockcloud: URLs, IDs checked before they go into
 * a URL, pagination, the JSON error body and a versioned User-Agent.
 *
 * Lookups return `undefined` (or `false` for deletes) on 404 only; every other failure throws.
 */
import {
  CloudCallGuard,
  type CloudCallContext,
  type CloudCallOptions,
  CloudCallThrottledError,
  CloudCallTimeoutError,
  classifyCloudError,
  type CredentialProvider,
  parseRetryAfter,
  staticCredential,
} from '@ccm-kit/runtime/guard';
import { isLeaseFencedError, leaseFenceSignal } from '@ccm-kit/runtime/leader-election';
import { fetch as undiciFetch } from 'undici';
import { VERSION } from '../version.js';
import type { WireLoadBalancer, WireRoute, WireServer, WireServerList } from '../wire.js';
import { isNotFound, MockCloudApiError, MockCloudNetworkError, MockCloudTimeoutError } from './errors.js';
import { idSegment } from './ids.js';
import { redactURL } from './redact.js';
import {
  type CloudLoadBalancer,
  type CloudRoute,
  type CloudRouteSpec,
  fromWireLoadBalancer,
  fromWireRoute,
  fromWireServer,
  type LoadBalancerSpec,
  type Server,
  toWireLoadBalancer,
  toWireRoute,
} from './types.js';

/** Retry settings. Durations in ms. */
export interface RetryOptions {
  /** Retries after the first attempt; default 5 (0 disables retrying). */
  retries?: number;
  /** First backoff delay in ms (doubled each retry, randomized ×1–2); default 250. */
  minDelayMs?: number;
  /** Largest backoff delay in ms; default 10000. */
  maxDelayMs?: number;
  /**
   * Longest `Retry-After` the client waits for, in ms; default 60000. A longer one fails the call at
   * once with the 429 error (its `retryAfterMs` tells the caller when to come back).
   */
  maxRetryAfterMs?: number;
}

/** Options of {@link MockCloudClient}. */
export interface MockCloudClientOptions {
  /** Base URL of the API, for example `https://api.mockcloud.example/v1`. */
  apiURL: string;
  /** The bearer token, or where to read it (`fileCredential` from `@ccm-kit/runtime/guard` for a rotated file). */
  token: string | CredentialProvider;
  retry?: RetryOptions;
  /** Timeout of each attempt, in ms; default 15000 (Hetzner's value). */
  requestTimeoutMs?: number;
  /** Requests in flight at once; default 8. */
  concurrency?: number;
  /** User-Agent; default `mockcloud-cloud-controller-manager/<version> (ccm-kit)`. */
  userAgent?: string;
  /**
   * The fetch implementation; default undici's `fetch`, which sends through the guard's dispatcher (the lease
   * fence checked as each request is written; Node's global `fetch` cannot take that dispatcher).
   */
  fetch?: typeof undiciFetch;
  /** The clock of the guard (Retry-After deadlines), in epoch ms; default `Date.now`. */
  now?: () => number;
}

/** Filters of list calls. */
export interface ListOptions {
  /** Exact name. */
  name?: string;
  /** A label selector (`k=v,k2 in (a,b)`). */
  labelSelector?: string;
  signal?: AbortSignal;
}

interface RequestInit {
  query?: Record<string, string | undefined>;
  body?: unknown;
  signal?: AbortSignal;
}

/**
 * The object under `key` of an answer, checked: an answer without it (for example a list where one object was
 * expected) is an error, never `undefined.id` further on.
 */
function field<T>(operation: string, body: unknown, key: string): T {
  const value = (body as Record<string, unknown> | undefined)?.[key];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MockCloudApiError(operation, 200, 'invalid_response', `the answer has no "${key}" object`);
  }
  return value as T;
}

/** Largest number of pages a list call follows (a guard against a broken `next_page`). */
const MAX_PAGES = 10_000;
const PER_PAGE = 50;

/** The mockcloud API client. One per provider; safe to share between controllers. */
export class MockCloudClient {
  readonly #base: string;
  readonly #guard: CloudCallGuard;
  readonly #userAgent: string;
  readonly #fetch: typeof undiciFetch;

  /**
   * @throws Error when `apiURL` is not an http(s) URL or carries credentials (never echoed), or a number option is
   *   out of range.
   */
  constructor(options: MockCloudClientOptions) {
    let url: URL;
    try {
      url = new URL(options.apiURL);
    } catch {
      throw new Error(`mockcloud: apiURL "${redactURL(options.apiURL)}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`mockcloud: apiURL "${redactURL(options.apiURL)}" must be http or https`);
    }
    if (url.username !== '' || url.password !== '') {
      throw new Error(
        `mockcloud: apiURL "${redactURL(options.apiURL)}" must not contain credentials; give the token instead`,
      );
    }
    this.#base = url.href.replace(/\/+$/, '');
    try {
      this.#guard = new CloudCallGuard({
        provider: 'mockcloud',
        credentials:
          typeof options.token === 'string' ? staticCredential(options.token, 'mockcloud API token') : options.token,
        retries: options.retry?.retries ?? 5,
        minDelayMs: options.retry?.minDelayMs ?? 250,
        maxDelayMs: options.retry?.maxDelayMs ?? 10_000,
        maxRetryAfterMs: options.retry?.maxRetryAfterMs ?? 60_000,
        timeoutMs: options.requestTimeoutMs ?? 15_000,
        concurrency: options.concurrency ?? 8,
        classify: (err) => (err instanceof MockCloudNetworkError ? 'network' : classifyCloudError(err)),
        ...(options.now ? { now: options.now } : {}),
      });
    } catch (err) {
      throw new Error(`mockcloud: ${(err as Error).message}`, { cause: err });
    }
    this.#userAgent = options.userAgent ?? `mockcloud-cloud-controller-manager/${VERSION} (ccm-kit)`;
    this.#fetch = options.fetch ?? undiciFetch;
  }

  // ---- servers ---------------------------------------------------------------------------------

  /** Every server matching the filters (all pages). */
  async listServers(options: ListOptions = {}): Promise<Server[]> {
    const items = await this.#listAll<WireServer>('list_servers', '/servers', 'servers', options);
    return items.map(fromWireServer);
  }

  /** One page (1-based) of the servers matching the filters; `nextPage` is `null` on the last page. */
  async listServerPage(page: number, options: ListOptions = {}): Promise<{ items: Server[]; nextPage: number | null }> {
    const { items, nextPage } = await this.#listPage<WireServer>('list_servers', '/servers', 'servers', page, options);
    return { items: items.map(fromWireServer), nextPage };
  }

  /** The server, or `undefined` when the API answers 404. */
  async getServer(id: string, signal?: AbortSignal): Promise<Server | undefined> {
    try {
      const body = await this.#request<{ server: WireServer }>(
        'get_server',
        'GET',
        `/servers/${idSegment('server', id)}`,
        {
          signal,
        },
      );
      return fromWireServer(field<WireServer>('get_server', body, 'server'));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Replaces the server's labels. @throws MockCloudApiError 404 when it does not exist. */
  async setServerLabels(id: string, labels: Record<string, string>, signal?: AbortSignal): Promise<Server> {
    const body = await this.#request<{ server: WireServer }>(
      'update_server',
      'PATCH',
      `/servers/${idSegment('server', id)}`,
      {
        body: { labels },
        signal,
      },
    );
    return fromWireServer(field<WireServer>('update_server', body, 'server'));
  }

  // ---- load balancers --------------------------------------------------------------------------

  /** Every load balancer matching the filters (all pages). */
  async listLoadBalancers(options: ListOptions = {}): Promise<CloudLoadBalancer[]> {
    const items = await this.#listAll<WireLoadBalancer>(
      'list_load_balancers',
      '/load_balancers',
      'load_balancers',
      options,
    );
    return items.map(fromWireLoadBalancer);
  }

  /** One page (1-based) of the load balancers matching the filters; `nextPage` is `null` on the last page. */
  async listLoadBalancerPage(
    page: number,
    options: ListOptions = {},
  ): Promise<{ items: CloudLoadBalancer[]; nextPage: number | null }> {
    const { items, nextPage } = await this.#listPage<WireLoadBalancer>(
      'list_load_balancers',
      '/load_balancers',
      'load_balancers',
      page,
      options,
    );
    return { items: items.map(fromWireLoadBalancer), nextPage };
  }

  /** The load balancer, or `undefined` when the API answers 404. */
  async getLoadBalancer(id: string, signal?: AbortSignal): Promise<CloudLoadBalancer | undefined> {
    try {
      const body = await this.#request<{ load_balancer: WireLoadBalancer }>(
        'get_load_balancer',
        'GET',
        `/load_balancers/${idSegment('load balancer', id)}`,
        { signal },
      );
      return fromWireLoadBalancer(field<WireLoadBalancer>('get_load_balancer', body, 'load_balancer'));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * Creates a load balancer (it starts `provisioning`).
   * @throws MockCloudApiError 409 `uniqueness_error` when the name is taken — also what a retried
   *   create whose first attempt did reach the API sees, so callers look the name up on 409.
   */
  async createLoadBalancer(
    spec: LoadBalancerSpec & { name: string },
    signal?: AbortSignal,
  ): Promise<CloudLoadBalancer> {
    const body = await this.#request<{ load_balancer: WireLoadBalancer }>(
      'create_load_balancer',
      'POST',
      '/load_balancers',
      {
        body: toWireLoadBalancer(spec),
        signal,
      },
    );
    return fromWireLoadBalancer(field<WireLoadBalancer>('create_load_balancer', body, 'load_balancer'));
  }

  /** Changes the fields present in `spec`. @throws MockCloudApiError 404 when it does not exist. */
  async updateLoadBalancer(id: string, spec: LoadBalancerSpec, signal?: AbortSignal): Promise<CloudLoadBalancer> {
    const body = await this.#request<{ load_balancer: WireLoadBalancer }>(
      'update_load_balancer',
      'PATCH',
      `/load_balancers/${idSegment('load balancer', id)}`,
      { body: toWireLoadBalancer(spec), signal },
    );
    return fromWireLoadBalancer(field<WireLoadBalancer>('update_load_balancer', body, 'load_balancer'));
  }

  /** Deletes a load balancer; `false` when it was already gone (404). */
  async deleteLoadBalancer(id: string, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.#request('delete_load_balancer', 'DELETE', `/load_balancers/${idSegment('load balancer', id)}`, {
        signal,
      });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  // ---- routes ----------------------------------------------------------------------------------

  /** Every route of the VPC route table matching the filters (all pages). */
  async listRoutes(options: ListOptions = {}): Promise<CloudRoute[]> {
    const items = await this.#listAll<WireRoute>('list_routes', '/routes', 'routes', options);
    return items.map(fromWireRoute);
  }

  /**
   * Creates a route.
   * @throws MockCloudApiError 409 `uniqueness_error` when the name is taken or the destination already has a
   *   route (also what a retried create whose first attempt did reach the API sees), 400 for a bad CIDR or an
   *   unknown target server.
   */
  async createRoute(spec: CloudRouteSpec, signal?: AbortSignal): Promise<CloudRoute> {
    const body = await this.#request<{ route: WireRoute }>('create_route', 'POST', '/routes', {
      body: toWireRoute(spec),
      signal,
    });
    return fromWireRoute(field<WireRoute>('create_route', body, 'route'));
  }

  /** Deletes a route; `false` when it was already gone (404). */
  async deleteRoute(id: string, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.#request('delete_route', 'DELETE', `/routes/${idSegment('route', id)}`, { signal });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  // ---- plumbing --------------------------------------------------------------------------------

  async #listAll<T>(operation: string, path: string, key: string, options: ListOptions): Promise<T[]> {
    const out: T[] = [];
    let page: number | null = 1;
    for (let n = 0; page !== null; n++) {
      if (n >= MAX_PAGES) throw new Error(`mockcloud ${operation}: more than ${MAX_PAGES} pages`);
      const result: { items: T[]; nextPage: number | null } = await this.#listPage<T>(
        operation,
        path,
        key,
        page,
        options,
      );
      out.push(...result.items);
      page = result.nextPage;
    }
    return out;
  }

  /** One page of a list; `nextPage` is `null` on the last page (or when the API's next page does not advance). */
  async #listPage<T>(
    operation: string,
    path: string,
    key: string,
    page: number,
    options: ListOptions,
  ): Promise<{ items: T[]; nextPage: number | null }> {
    const body: Record<string, unknown> & { meta: WireServerList['meta'] } = await this.#request(
      operation,
      'GET',
      path,
      {
        query: {
          name: options.name,
          label_selector: options.labelSelector,
          page: String(page),
          per_page: String(PER_PAGE),
        },
        signal: options.signal,
      },
    );
    const next: number | null = body.meta?.pagination?.next_page ?? null;
    return { items: (body[key] as T[] | undefined) ?? [], nextPage: next !== null && next > page ? next : null };
  }

  /**
   * One API call under the guard; resolves with the parsed JSON body (`undefined` for 204). Guard errors become
   * this client's: a timeout is a {@link MockCloudTimeoutError}, a call held back by a long `Retry-After` a 429
   * {@link MockCloudApiError}.
   */
  async #request<T>(operation: string, method: string, path: string, init: RequestInit): Promise<T> {
    const options: CloudCallOptions = init.signal ? { signal: init.signal } : {};
    try {
      return await this.#guard.call(operation, (ctx) => this.#send<T>(operation, method, path, init, ctx), options);
    } catch (err) {
      if (err instanceof CloudCallTimeoutError) throw new MockCloudTimeoutError(operation, err.timeoutMs);
      if (err instanceof CloudCallThrottledError) {
        throw new MockCloudApiError(
          operation,
          429,
          'rate_limit_exceeded',
          `not sent: the API asked to wait another ${err.retryAfterMs} ms`,
          err.retryAfterMs,
        );
      }
      throw err;
    }
  }

  async #send<T>(
    operation: string,
    method: string,
    path: string,
    init: RequestInit,
    { signal, credential, dispatcher }: CloudCallContext,
  ): Promise<T> {
    const url = new URL(this.#base + path);
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    // Lease fencing (ccm-kit decision 0050): no request while this replica cannot prove it leads, and none sent
    // late. Refused here per request (each guard attempt, since one facet call may make several), and again by
    // the guard's dispatcher at the moment the request is written, which also stops one that was queued for a
    // connection when the fence closed. A LeaseFencedError has no HTTP status, so the guard does not retry it.
    const fence = leaseFenceSignal(`cloud request ${method} ${path}`);
    const requestSignal = fence ? AbortSignal.any([signal, fence]) : signal;
    const headers: Record<string, string> = {
      authorization: `Bearer ${credential ?? ''}`,
      'user-agent': this.#userAgent,
      accept: 'application/json',
    };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let res: Awaited<ReturnType<typeof undiciFetch>>;
    let text: string;
    try {
      res = await this.#fetch(url, {
        method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: requestSignal,
        dispatcher,
      });
      text = await res.text();
    } catch (err) {
      if (fence?.aborted) throw fence.reason;
      if (signal.aborted) throw signal.reason;
      const cause = (err as Error | undefined)?.cause;
      if (isLeaseFencedError(cause)) throw cause; // refused by the dispatcher as it was about to be written
      throw new MockCloudNetworkError(operation, err);
    }
    if (!res.ok) {
      let errCode = 'unknown';
      let message = text.slice(0, 500);
      try {
        const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
        errCode = parsed.error?.code ?? errCode;
        message = parsed.error?.message ?? message;
      } catch {
        // not JSON: keep the raw text
      }
      const retryAfterMs =
        res.status === 429 || res.status === 503 ? parseRetryAfter(res.headers.get('retry-after')) : undefined;
      throw new MockCloudApiError(operation, res.status, errCode, message, retryAfterMs);
    }
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new MockCloudApiError(operation, res.status, 'invalid_response', 'the answer is not valid JSON');
    }
  }
}

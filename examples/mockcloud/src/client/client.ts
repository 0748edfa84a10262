/**
 * A typed client for the mockcloud API, with the protections every serious CCM puts in front of its
 * cloud:
 * - retries with exponential backoff and jitter (p-retry) on 429, 5xx, network errors and timeouts;
 * - `Retry-After` honoured for the whole client: after a 429/503 carrying it, no request is sent until
 *   the delay has passed (Hetzner Robot's pattern), and a delay longer than `maxRetryAfterMs` fails at
 *   once instead of blocking a worker;
 * - a concurrency limit (p-limit), a per-request timeout, a versioned User-Agent;
 * - per-operation Prometheus metrics (`metrics.ts`);
 * - a token re-read and one immediate retry after a 401, so a rotated token file takes effect.
 *
 * Lookups return `undefined` (or `false` for deletes) on 404 only; every other failure throws.
 */
import { leaseFenceSignal, sleep } from '@ccm-kit/runtime';
import pLimit, { type LimitFunction } from 'p-limit';
import pRetry from 'p-retry';
import { VERSION } from '../version.js';
import type { WireLoadBalancer, WireServer, WireServerList } from '../wire.js';
import {
  isNotFound,
  isRetryable,
  MockCloudApiError,
  MockCloudNetworkError,
  MockCloudTimeoutError,
} from './errors.js';
import { clientMetrics } from './metrics.js';
import { parseRetryAfter } from './retry-after.js';
import { staticToken, type TokenSource } from './token.js';
import {
  type CloudLoadBalancer,
  fromWireLoadBalancer,
  fromWireServer,
  type LoadBalancerSpec,
  type Server,
  toWireLoadBalancer,
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
  /** The bearer token, or where to read it. */
  token: string | TokenSource;
  retry?: RetryOptions;
  /** Timeout of each attempt, in ms; default 15000 (Hetzner's value). */
  requestTimeoutMs?: number;
  /** Requests in flight at once; default 8. */
  concurrency?: number;
  /** User-Agent; default `mockcloud-cloud-controller-manager/<version> (ccm-kit)`. */
  userAgent?: string;
  /** The fetch implementation; default the global `fetch`. */
  fetch?: typeof fetch;
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

/** Largest number of pages a list call follows (a guard against a broken `next_page`). */
const MAX_PAGES = 10_000;
const PER_PAGE = 50;

function reasonOf(err: unknown): string {
  if (err instanceof MockCloudApiError) return String(err.status);
  if (err instanceof MockCloudTimeoutError) return 'timeout';
  if (err instanceof MockCloudNetworkError) return 'network';
  return 'other';
}

/** The mockcloud API client. One per provider; safe to share between controllers. */
export class MockCloudClient {
  readonly #base: string;
  readonly #token: TokenSource;
  readonly #retries: number;
  readonly #minDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #timeoutMs: number;
  readonly #limit: LimitFunction;
  readonly #userAgent: string;
  readonly #fetch: typeof fetch;
  /** Epoch ms before which no request is sent (set by `Retry-After`). */
  #blockedUntil = 0;

  /** @throws Error when `apiURL` is not an http(s) URL or a number option is out of range. */
  constructor(options: MockCloudClientOptions) {
    let url: URL;
    try {
      url = new URL(options.apiURL);
    } catch {
      throw new Error(`mockcloud: apiURL "${options.apiURL}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`mockcloud: apiURL "${options.apiURL}" must be http or https`);
    }
    this.#base = url.href.replace(/\/+$/, '');
    this.#token = typeof options.token === 'string' ? staticToken(options.token) : options.token;
    this.#retries = options.retry?.retries ?? 5;
    this.#minDelayMs = options.retry?.minDelayMs ?? 250;
    this.#maxDelayMs = options.retry?.maxDelayMs ?? 10_000;
    this.#maxRetryAfterMs = options.retry?.maxRetryAfterMs ?? 60_000;
    this.#timeoutMs = options.requestTimeoutMs ?? 15_000;
    const concurrency = options.concurrency ?? 8;
    if (!Number.isInteger(this.#retries) || this.#retries < 0)
      throw new Error('mockcloud: retry.retries must be an integer >= 0');
    if (!(this.#timeoutMs > 0)) throw new Error('mockcloud: requestTimeoutMs must be > 0');
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new Error('mockcloud: concurrency must be an integer >= 1');
    this.#limit = pLimit(concurrency);
    this.#userAgent = options.userAgent ?? `mockcloud-cloud-controller-manager/${VERSION} (ccm-kit)`;
    this.#fetch = options.fetch ?? fetch;
  }

  // ---- servers ---------------------------------------------------------------------------------

  /** Every server matching the filters (all pages). */
  async listServers(options: ListOptions = {}): Promise<Server[]> {
    const items = await this.#listAll<WireServer>('list_servers', '/servers', 'servers', options);
    return items.map(fromWireServer);
  }

  /** The server, or `undefined` when the API answers 404. */
  async getServer(id: string, signal?: AbortSignal): Promise<Server | undefined> {
    try {
      const body = await this.#request<{ server: WireServer }>(
        'get_server',
        'GET',
        `/servers/${encodeURIComponent(id)}`,
        {
          signal,
        },
      );
      return fromWireServer(body.server);
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
      `/servers/${encodeURIComponent(id)}`,
      {
        body: { labels },
        signal,
      },
    );
    return fromWireServer(body.server);
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

  /** The load balancer, or `undefined` when the API answers 404. */
  async getLoadBalancer(id: string, signal?: AbortSignal): Promise<CloudLoadBalancer | undefined> {
    try {
      const body = await this.#request<{ load_balancer: WireLoadBalancer }>(
        'get_load_balancer',
        'GET',
        `/load_balancers/${encodeURIComponent(id)}`,
        { signal },
      );
      return fromWireLoadBalancer(body.load_balancer);
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
    return fromWireLoadBalancer(body.load_balancer);
  }

  /** Changes the fields present in `spec`. @throws MockCloudApiError 404 when it does not exist. */
  async updateLoadBalancer(
    id: string,
    spec: LoadBalancerSpec,
    signal?: AbortSignal,
  ): Promise<CloudLoadBalancer> {
    const body = await this.#request<{ load_balancer: WireLoadBalancer }>(
      'update_load_balancer',
      'PATCH',
      `/load_balancers/${encodeURIComponent(id)}`,
      { body: toWireLoadBalancer(spec), signal },
    );
    return fromWireLoadBalancer(body.load_balancer);
  }

  /** Deletes a load balancer; `false` when it was already gone (404). */
  async deleteLoadBalancer(id: string, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.#request('delete_load_balancer', 'DELETE', `/load_balancers/${encodeURIComponent(id)}`, {
        signal,
      });
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
      out.push(...((body[key] as T[] | undefined) ?? []));
      const next: number | null = body.meta?.pagination?.next_page ?? null;
      page = next !== null && next > page ? next : null;
    }
    return out;
  }

  /** One API call with retries; resolves with the parsed JSON body (`undefined` for 204). */
  async #request<T>(operation: string, method: string, path: string, init: RequestInit): Promise<T> {
    const metrics = clientMetrics();
    return pRetry(() => this.#attempt<T>(operation, method, path, init), {
      retries: this.#retries,
      minTimeout: this.#minDelayMs,
      maxTimeout: this.#maxDelayMs,
      factor: 2,
      randomize: true,
      signal: init.signal,
      shouldRetry: ({ error }) => {
        if (!isRetryable(error)) return false;
        const after = (error as MockCloudApiError).retryAfterMs;
        return after === undefined || after <= this.#maxRetryAfterMs;
      },
      onFailedAttempt: ({ error, retriesLeft }) => {
        if (retriesLeft > 0 && isRetryable(error))
          metrics.retries.inc({ operation, reason: reasonOf(error) });
      },
    });
  }

  async #waitForRetryAfter(operation: string, signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const wait = this.#blockedUntil - Date.now();
      if (wait <= 0) return;
      if (wait > this.#maxRetryAfterMs) {
        throw new MockCloudApiError(
          operation,
          429,
          'rate_limit_exceeded',
          `not sent: the API asked to wait another ${wait} ms`,
          wait,
        );
      }
      if (!(await sleep(wait, signal))) signal?.throwIfAborted();
    }
  }

  async #attempt<T>(operation: string, method: string, path: string, init: RequestInit): Promise<T> {
    return this.#limit(async () => {
      // Checked inside the slot, right before sending, so requests queued behind the limit also wait.
      await this.#waitForRetryAfter(operation, init.signal);
      let token = await this.#token.token();
      try {
        return await this.#send<T>(operation, method, path, init, token);
      } catch (err) {
        // A rotated token: read it again and retry once at once, outside the backoff.
        if (!(err instanceof MockCloudApiError) || err.status !== 401) throw err;
        this.#token.invalidate();
        const fresh = await this.#token.token();
        if (fresh === token) throw err;
        token = fresh;
        return await this.#send<T>(operation, method, path, init, token);
      }
    });
  }

  async #send<T>(
    operation: string,
    method: string,
    path: string,
    init: RequestInit,
    token: string,
  ): Promise<T> {
    const metrics = clientMetrics();
    const url = new URL(this.#base + path);
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    // Lease fencing (ccm-kit decision 0050): no request while this replica cannot prove it leads, and none
    // sent late; checked per request because one facet call may make several (lookups, retries, Retry-After).
    const fence = leaseFenceSignal(`cloud request ${method} ${path}`);
    const signals = [timeout, ...(init.signal ? [init.signal] : []), ...(fence ? [fence] : [])];
    const signal = signals.length === 1 ? timeout : AbortSignal.any(signals);
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'user-agent': this.#userAgent,
      accept: 'application/json',
    };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const end = metrics.duration.startTimer({ operation });
    let code = 'network';
    try {
      const res = await this.#fetch(url, {
        method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal,
      });
      code = String(res.status);
      const text = await res.text();
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      if (retryAfterMs !== undefined && (res.status === 429 || res.status === 503)) {
        this.#blockedUntil = Math.max(this.#blockedUntil, Date.now() + retryAfterMs);
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
        throw new MockCloudApiError(operation, res.status, errCode, message, retryAfterMs);
      }
      if (text === '') return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new MockCloudApiError(
          operation,
          res.status,
          'invalid_response',
          'the answer is not valid JSON',
        );
      }
    } catch (err) {
      if (err instanceof MockCloudApiError) throw err;
      if (init.signal?.aborted) throw init.signal.reason;
      if (fence?.aborted) throw fence.reason;
      if (timeout.aborted) {
        code = 'timeout';
        throw new MockCloudTimeoutError(operation, this.#timeoutMs);
      }
      throw new MockCloudNetworkError(operation, err);
    } finally {
      end();
      metrics.requests.inc({ operation, code });
    }
  }
}

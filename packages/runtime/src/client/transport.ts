/**
 * The HTTP transport every ccm-kit API client shares (the role of client-go's `rest.Config` transport):
 * - one undici keep-alive `Agent` per process (client-node otherwise creates a new `Agent`, and so a
 *   new TLS handshake, for every request). When the server offers HTTP/2 (kube-apiserver does), all
 *   requests and watches share one multiplexed connection, as with client-go, kept alive by a PING
 *   every 30 s (client-go's HTTP/2 `ReadIdleTimeout`);
 * - a client-side token-bucket QPS/burst limiter shared by all clients;
 * - a `User-Agent` per client name;
 * - a per-request timeout through an `AbortSignal` (watches are exempt: they end by `timeoutSeconds`
 *   and their own inactivity timer);
 * - client-go's `rest_client_*` metrics.
 *
 * Authentication still comes from the KubeConfig (`applySecurityAuthentication`: tokens, token files,
 * exec plugins); only the dispatcher it creates is replaced by the shared one.
 */
import * as fs from 'node:fs';
import type { HttpLibrary, RequestContext } from '@kubernetes/client-node';
import { Agent, buildConnector, type Dispatcher, fetch, ProxyAgent, type Response } from 'undici';
import { checkAtSendInterceptor, leaseFencedCause, type SendCheck } from '../leader-election/fence-interceptor.js';
import { createLogger } from '../logging.js';
import { clientNode } from './client-node-parts.js';
import type { KubeConfigLike } from './lean-kubeconfig.js';
import { RawRequest, type TransportRequest } from './raw-request.js';
import { ServerAnswers } from './server-answers.js';
import {
  restClientRateLimiterDuration,
  restClientRequestDuration,
  restClientRequestsTotal,
} from './metrics.js';
import { ClientRateLimiter } from './rate-limiter.js';

const log = createLogger('rest-client');

/** Transport settings; see {@link RestTransport}. */
export interface RestTransportOptions {
  /** Requests per second allowed by the shared limiter; a negative value disables limiting. */
  qps: number;
  /** Burst of the shared limiter (≥ 1 when limiting). */
  burst: number;
  /** Per-request timeout in milliseconds, covering the response body; 0 disables. Not applied to watches. */
  timeoutMs: number;
  /** `Accept` header sent when a request sets none (default `application/json`). */
  accept?: string;
  /** Most connections per API server (default unlimited, like client-go's HTTP/1.1 transport). */
  maxConnections?: number;
  /** Idle keep-alive time of pooled connections in milliseconds (default 90 000, client-go's IdleConnTimeout). */
  keepAliveTimeoutMs?: number;
}

/** Options of one raw request made through {@link RestTransport.request}. */
export interface RawRequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  body?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** A long-running watch: no request timeout. */
  watch?: boolean;
}

/** Thrown for a request that got no HTTP response (connection refused, reset, TLS failure). */
export class TransportError extends Error {
  /** The system error code (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...) when known. */
  readonly code?: string;
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'TransportError';
    const c = (cause as { cause?: { code?: unknown }; code?: unknown }) ?? {};
    const code = c.cause?.code ?? c.code;
    if (typeof code === 'string') this.code = code;
  }
}

function readData(file?: string, data?: string): Buffer | undefined {
  if (file) return fs.readFileSync(file);
  if (data) return Buffer.from(data, 'base64');
  return undefined;
}

export class RestTransport {
  readonly kubeConfig: KubeConfigLike;
  /** `host:port` of the API server, the `host` label of the metrics. */
  readonly host: string;
  readonly server: string;
  readonly limiter: ClientRateLimiter | undefined;
  /** Whether the server answers; reflectors wait on it after losing the server. */
  readonly answers: ServerAnswers;
  readonly #opts: RestTransportOptions;
  readonly #dispatcher: Dispatcher | undefined;
  #writeGuard: SendCheck | undefined;
  #connectionsOpened = 0;
  #closed = false;

  /**
   * @throws Error when the KubeConfig has no current cluster, or RangeError naming `qps`, `burst`
   *   or `timeoutMs` when invalid.
   */
  constructor(kubeConfig: KubeConfigLike, opts: RestTransportOptions) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeConfig: no current cluster');
    if (!Number.isFinite(opts.timeoutMs) || opts.timeoutMs < 0) {
      throw new RangeError(`timeoutMs must be a number >= 0, got ${opts.timeoutMs}`);
    }
    if (!Number.isFinite(opts.qps) || opts.qps === 0)
      throw new RangeError(`qps must be > 0 (or negative to disable), got ${opts.qps}`);
    this.kubeConfig = kubeConfig;
    this.#opts = opts;
    this.server = cluster.server.replace(/\/+$/, '');
    this.host = new URL(this.server).host;
    this.limiter = opts.qps > 0 ? new ClientRateLimiter(opts.qps, opts.burst) : undefined;
    this.answers = new ServerAnswers(async (signal) => {
      const resp = await this.request('/readyz', 'ccm-kit-server-probe', { signal });
      await resp.body?.cancel();
      return resp.status;
    });

    const user = kubeConfig.getCurrentUser();
    const tlsOpts: buildConnector.BuildOptions = {
      keepAlive: true,
      keepAliveInitialDelay: 30_000,
      ...(cluster.skipTLSVerify ? { rejectUnauthorized: false } : {}),
      ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
    };
    const ca = readData(cluster.caFile, cluster.caData);
    const cert = readData(user?.certFile, user?.certData);
    const key = readData(user?.keyFile, user?.keyData);
    if (ca) Object.assign(tlsOpts, { ca });
    if (cert) Object.assign(tlsOpts, { cert });
    if (key) Object.assign(tlsOpts, { key });
    const pool = {
      keepAliveTimeout: opts.keepAliveTimeoutMs ?? 90_000,
      h2Options: { pingInterval: 30_000 },
      ...(opts.maxConnections ? { connections: opts.maxConnections } : {}),
    };
    // The write guard runs again at the moment each request is written to its connection, so a write that
    // waited in the pool (for a connection, or while the process was paused) is not sent late.
    const atSend = checkAtSendInterceptor(() => this.#writeGuard);
    const proxy = cluster.proxyUrl;
    if (proxy && /^socks/i.test(proxy)) {
      log.warn('SOCKS proxies use client-node per-request connections; connection reuse is off', { proxy });
      this.#dispatcher = undefined;
    } else if (proxy) {
      this.#dispatcher = new ProxyAgent({ uri: proxy, requestTls: tlsOpts, ...pool }).compose(atSend);
    } else {
      const connector = buildConnector(tlsOpts);
      this.#dispatcher = new Agent({
        ...pool,
        connect: (o, cb) =>
          connector(o, (err, socket) => {
            if (!err) this.#connectionsOpened++;
            (cb as (e: Error | null, s: unknown) => void)(err, socket);
          }),
      }).compose(atSend);
    }
  }

  /**
   * Installs a check of each request (the manager's lease fence, see `leaseWriteGuard`); it throws to refuse
   * the request. It runs twice: before the request waits for the limiter (a cheap refusal), and inside the
   * shared dispatcher at the moment the request is written to its connection, so a request that waited for a
   * connection is refused then rather than sent late (not with a SOCKS proxy, whose connections client-node
   * makes). Undefined removes it.
   */
  setWriteGuard(guard: ((method: string, url: URL) => void) | undefined): void {
    this.#writeGuard = guard;
  }

  /** Connections the shared agent has opened so far (each a TCP connect and, for https, a TLS handshake). */
  get connectionsOpened(): number {
    return this.#connectionsOpened;
  }

  /**
   * Sends a prepared request (authentication already applied) through the shared dispatcher,
   * after the limiter, with the user agent, timeout and metrics.
   * @throws the abort reason when cancelled or timed out; {@link TransportError} when no response came;
   *   whatever the write guard throws when it refuses the request (before it is queued or when it would be
   *   written).
   */
  async send(ctx: TransportRequest, userAgent: string, watch = false): Promise<Response> {
    if (this.#closed) throw new Error('RestTransport: closed');
    const method = ctx.getHttpMethod().toString();
    const headers = ctx.getHeaders();
    ctx.setHeaderParam('User-Agent', userAgent);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'accept')) {
      ctx.setHeaderParam('Accept', this.#opts.accept ?? 'application/json');
    }
    const callerSignal = ctx.getSignal();
    this.#writeGuard?.(method, new URL(ctx.getUrl()));
    if (this.limiter) {
      const t0 = performance.now();
      await this.limiter.wait(callerSignal);
      restClientRateLimiterDuration.observe(
        { verb: method, host: this.host },
        (performance.now() - t0) / 1000,
      );
    }
    const signals: AbortSignal[] = [];
    if (callerSignal) signals.push(callerSignal);
    if (!watch && this.#opts.timeoutMs > 0) signals.push(AbortSignal.timeout(this.#opts.timeoutMs));
    const signal =
      signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const dispatcher = this.#dispatcher ?? ctx.getDispatcher();
    const start = performance.now();
    try {
      const body = ctx.getBody();
      const resp = await fetch(ctx.getUrl(), {
        method,
        headers: ctx.getHeaders(),
        ...(body !== undefined ? { body: body as string } : {}),
        ...(signal ? { signal } : {}),
        ...(dispatcher ? { dispatcher } : {}),
      });
      restClientRequestsTotal.inc({ code: String(resp.status), host: this.host, method });
      this.answers.answered(resp.status);
      restClientRequestDuration.observe(
        { verb: method, host: this.host },
        (performance.now() - start) / 1000,
      );
      return resp;
    } catch (err) {
      restClientRequestsTotal.inc({ code: '<error>', host: this.host, method });
      restClientRequestDuration.observe(
        { verb: method, host: this.host },
        (performance.now() - start) / 1000,
      );
      if (signal?.aborted) throw signal.reason;
      const fenced = leaseFencedCause(err);
      if (fenced) throw fenced;
      this.answers.unreachable();
      const cause = (err as { cause?: Error }).cause;
      throw new TransportError(`${method} ${ctx.getUrl()}: ${cause?.message ?? (err as Error).message}`, err);
    }
  }

  /** A client-node `HttpLibrary` sending through this transport with the given user agent (loads client-node). */
  httpLibrary(userAgent: string): HttpLibrary {
    const { wrapHttpLibrary, ResponseContext } = clientNode();
    return wrapHttpLibrary({
      send: async (ctx: RequestContext) => {
        const resp = await this.send(ctx, userAgent);
        const headers: Record<string, string> = {};
        resp.headers.forEach((v, k) => {
          headers[k] = v;
        });
        return new ResponseContext(resp.status, headers, {
          text: () => resp.text(),
          binary: async () => Buffer.from(await resp.arrayBuffer()),
          stream: () => resp.body as ReadableStream<Uint8Array> | null,
        });
      },
    });
  }

  /**
   * A raw request to `path` (for example `/api/v1/nodes`), authenticated from the KubeConfig. The
   * caller reads (or cancels) the response body. Non-2xx responses are returned, not thrown.
   */
  async request(path: string, userAgent: string, opts: RawRequestOptions = {}): Promise<Response> {
    const url = new URL(this.server + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const ctx = new RawRequest(url.toString(), opts.method ?? 'GET');
    await this.kubeConfig.applySecurityAuthentication(ctx);
    for (const [k, v] of Object.entries(opts.headers ?? {})) ctx.setHeaderParam(k, v);
    if (opts.body !== undefined) ctx.setBody(opts.body);
    if (opts.signal) ctx.setSignal(opts.signal);
    return this.send(ctx, userAgent, opts.watch ?? false);
  }

  /** Closes pooled connections; in-flight requests are aborted. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.answers.close();
    await this.#dispatcher?.destroy().catch(() => undefined);
  }
}

/**
 * The HTTP transport every ccm-kit API client shares (the role of client-go's `rest.Config` transport):
 * - to an `https://` server without a proxy, one `node:http2` session of its own ({@link Http2Connection},
 *   decision 0430): all requests and watches are streams of one multiplexed connection, as with client-go, kept
 *   alive by a PING every 30 s (client-go's HTTP/2 `ReadIdleTimeout`). Through a proxy, to a plain `http://`
 *   server or another origin, one undici keep-alive `Agent` (client-node otherwise creates a new `Agent`, and so a
 *   new TLS handshake, for every request);
 * - a client-side token-bucket QPS/burst limiter shared by all clients;
 * - a `User-Agent` per client name;
 * - a per-request timeout, one timer per request (watches are exempt: they end by `timeoutSeconds`
 *   and their own inactivity timer);
 * - no `fetch`: the answer's body is a Node stream (the HTTP/2 stream, or undici's `Dispatcher.request` body), with
 *   no web streams, `Headers` or URL parsing per request (a third of the CCM's CPU went to them, bench/README.md);
 * - client-go's `rest_client_*` metrics;
 * - with tracing on, a span per API write made inside a reconcile (docs/tracing.md).
 *
 * Authentication still comes from the KubeConfig (`applySecurityAuthentication`: tokens, token files,
 * exec plugins); only the dispatcher it creates is replaced by the shared one.
 *
 * undici is imported on first use (a proxy, an `http://` server, another origin): the common case (`https://`, no
 * proxy) never needs it, and loading it at start added 5–7 MiB to a 30-Node W1's peak
 * (bench/results/2026-11-29-start-path.md).
 */
import * as fs from 'node:fs';
import type { HttpLibrary, RequestContext } from '@kubernetes/client-node';
import { Readable } from 'node:stream';
import type { buildConnector, Dispatcher } from 'undici';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2';
import { checkAtSendInterceptor, leaseFencedCause, type SendCheck } from '../leader-election/fence-interceptor.js';
import { createLogger } from '../logging.js';
import { ResponseContext, wrapHttpLibrary } from './client-node-parts.js';
import type { KubeConfigLike } from './lean-kubeconfig.js';
import { RawRequest, type TransportRequest } from './raw-request.js';
import { RequestAbort } from './request-abort.js';
import { ServerAnswers } from './server-answers.js';
import { Http2Connection, type Http2TlsOptions, responseOf } from './http2-connection.js';
import { TransportResponse } from './transport-response.js';
import { adoptUnrequestedStreams } from './unrequested-streams.js';
import { restClientRateLimiterDuration, restClientRequestDuration, restClientRequestsTotal } from './metrics.js';
import { ClientRateLimiter } from './rate-limiter.js';
import { traceApiWrite } from '../tracing/spans.js';

const log = createLogger('rest-client');

let undiciModule: Promise<typeof import('undici')> | undefined;
/** undici, loaded once, on the first request that needs it (a dynamic import a bundler keeps in its own chunk). */
function undici(): Promise<typeof import('undici')> {
  return (undiciModule ??= import('undici'));
}

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
  /** The HTTP method (default `GET`). */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** The request body, sent as given (set `Content-Type` in `headers`). */
  body?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Aborts the request (and a watch's stream). */
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

/** A response before it becomes a {@link TransportResponse}: undici's `Dispatcher.request` answer, or a stream's. */
interface RawAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

const answersOf = new WeakMap<RestTransport, ServerAnswers>();

/**
 * Whether the transport's server answers: reflectors wait on it after losing the server
 * (`restListerWatcher`'s `waitForServer`/`retryDelayMs`). Not on {@link RestTransport} itself, which keeps
 * `ServerAnswers` out of the public API.
 */
export function transportAnswers(transport: RestTransport): ServerAnswers {
  return answersOf.get(transport)!;
}

/**
 * The HTTP layer of every API client (client-go `rest.RESTClient` over one `http.Transport`): one `node:http2`
 * session (or, through a proxy or to `http://`, undici `Dispatcher.request` over one connection pool) per process,
 * the kubeconfig's TLS and credentials, the client rate
 * limiter, the request timeout (watches excepted), the client-go `rest_client_*` metrics and the lease fence's write
 * check.
 */
export class RestTransport {
  /** The kubeconfig it authenticates with. */
  readonly kubeConfig: KubeConfigLike;
  /** `host:port` of the API server, the `host` label of the metrics. */
  readonly host: string;
  /** The API server's base URL, without a trailing slash. */
  readonly server: string;
  /** The origin and path prefix of {@link server}, parsed once. */
  readonly #origin: string;
  readonly #basePath: string;
  /** The client rate limiter, or `undefined` when `qps` is negative (no limit). */
  readonly limiter: ClientRateLimiter | undefined;
  /** Whether the server answers; reflectors wait on it after losing the server ({@link transportAnswers}). */
  readonly #answers: ServerAnswers;
  readonly #opts: RestTransportOptions;
  /**
   * The undici dispatcher, made on first use: the proxy's, the `http://` server's, or one for another origin. None
   * with a SOCKS proxy (client-node's per-request dispatcher, else undici's global one).
   */
  #dispatcher: Promise<Dispatcher | undefined> | undefined;
  /** Makes {@link #dispatcher}: a `ProxyAgent`, nothing (SOCKS), or an `Agent` with the kubeconfig's TLS. */
  readonly #makeDispatcher: () => Promise<Dispatcher | undefined>;
  /** The one `node:http2` connection to an `https://` server reached without a proxy. */
  readonly #h2: Http2Connection | undefined;
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
    const serverUrl = new URL(this.server);
    this.host = serverUrl.host;
    this.#origin = serverUrl.origin;
    this.#basePath = serverUrl.pathname.replace(/\/+$/, '');
    this.limiter = opts.qps > 0 ? new ClientRateLimiter(opts.qps, opts.burst) : undefined;
    answersOf.set(
      this,
      (this.#answers = new ServerAnswers(async (signal) => {
        const resp = await this.request('/readyz', 'ccm-kit-server-probe', { signal });
        await resp.cancel();
        return resp.status;
      })),
    );

    const user = kubeConfig.getCurrentUser();
    // The kubeconfig's TLS, for the node:http2 session and (with TCP keep-alive) for undici's connections.
    const ca = readData(cluster.caFile, cluster.caData);
    const cert = readData(user?.certFile, user?.certData);
    const key = readData(user?.keyFile, user?.keyData);
    const tls: Http2TlsOptions = {
      ...(cluster.skipTLSVerify ? { rejectUnauthorized: false } : {}),
      ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
      ...(ca ? { ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
    };
    const tlsOpts: buildConnector.BuildOptions = { keepAlive: true, keepAliveInitialDelay: 30_000, ...tls };
    const pool = {
      keepAliveTimeout: opts.keepAliveTimeoutMs ?? 90_000,
      h2Options: { pingInterval: 30_000 },
      ...(opts.maxConnections ? { connections: opts.maxConnections } : {}),
    };
    // The write guard runs again at the moment each request is written to its connection, so a write that
    // waited in the pool (for a connection, or while the process was paused) is not sent late.
    const atSend = checkAtSendInterceptor(() => this.#writeGuard);
    const makeAgent = async (): Promise<Dispatcher> => {
      const { Agent, buildConnector } = await undici();
      const connector = buildConnector(tlsOpts);
      return new Agent({
        ...pool,
        connect: (o, cb) =>
          connector(o, (err, socket) => {
            if (!err) {
              this.#connectionsOpened++;
              adoptUnrequestedStreams(socket);
            }
            (cb as (e: Error | null, s: unknown) => void)(err, socket);
          }),
      }).compose(atSend);
    };
    const proxy = cluster.proxyUrl;
    if (proxy && /^socks/i.test(proxy)) {
      log.warn('SOCKS proxies use client-node per-request connections; connection reuse is off', { proxy });
      this.#makeDispatcher = async () => undefined;
    } else if (proxy) {
      this.#makeDispatcher = async () =>
        new (await undici()).ProxyAgent({ uri: proxy, requestTls: tlsOpts, ...pool }).compose(atSend);
    } else if (serverUrl.protocol === 'https:') {
      // kube-apiserver speaks HTTP/2 over TLS only; a plain-HTTP server (tests, a local proxy) keeps undici.
      this.#makeDispatcher = makeAgent; // for another origin only
      this.#h2 = new Http2Connection({
        origin: this.#origin,
        tls,
        idleTimeoutMs: pool.keepAliveTimeout,
        onConnect: () => this.#connectionsOpened++,
      });
    } else {
      this.#makeDispatcher = makeAgent;
    }
  }

  /**
   * Installs a check of each request (the manager's lease fence, see `leaseWriteGuard`); it throws to refuse
   * the request. It runs twice: before the request waits for the limiter (a cheap refusal), and at the moment the
   * request is written to its connection (just before its HTTP/2 stream opens, or inside the undici dispatcher),
   * so a request that waited for a connection is refused then rather than sent late (not with a SOCKS proxy,
   * whose connections client-node makes). Undefined removes it.
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
   * after the limiter, with the user agent, timeout and metrics. The timeout covers the response body:
   * read or {@link TransportResponse.cancel} it.
   * @throws the abort reason when cancelled or timed out (a `TimeoutError` `DOMException`, as
   *   `AbortSignal.timeout`); {@link TransportError} when no response came; whatever the write guard throws
   *   when it refuses the request (before it is queued or when it would be written).
   */
  send(ctx: TransportRequest, userAgent: string, watch = false): Promise<TransportResponse> {
    const method = ctx.getHttpMethod().toString();
    if (method === 'GET' || watch) return this.#send(ctx, method, userAgent, watch);
    return traceApiWrite(method, ctx.getUrl(), () => this.#send(ctx, method, userAgent, watch));
  }

  async #send(ctx: TransportRequest, method: string, userAgent: string, watch: boolean): Promise<TransportResponse> {
    if (this.#closed) throw new Error('RestTransport: closed');
    const headers = ctx.getHeaders();
    ctx.setHeaderParam('User-Agent', userAgent);
    let hasAccept = false;
    let hasEncoding = false;
    for (const h in headers) {
      const l = h.toLowerCase();
      if (l === 'accept') hasAccept = true;
      else if (l === 'accept-encoding') hasEncoding = true;
    }
    if (!hasAccept) ctx.setHeaderParam('Accept', this.#opts.accept ?? 'application/json');
    // As client-go (Go's transport) and fetch before: large answers may come gzip-compressed.
    if (!hasEncoding) ctx.setHeaderParam('Accept-Encoding', 'gzip');
    const callerSignal = ctx.getSignal();
    const url = ctx.getUrl();
    // Parsed only for the write guard, and once for both of its checks.
    let parsed: URL | undefined;
    if (this.#writeGuard) this.#writeGuard(method, (parsed = new URL(url)));
    if (this.limiter) {
      const t0 = performance.now();
      await this.limiter.wait(callerSignal);
      restClientRateLimiterDuration.observe({ verb: method, host: this.host }, (performance.now() - t0) / 1000);
      if (this.#closed) throw new Error('RestTransport: closed');
    }
    const abort = new RequestAbort(callerSignal, watch ? 0 : this.#opts.timeoutMs);
    const { origin, path } = this.#splitUrl(url);
    const start = performance.now();
    try {
      const resp =
        this.#h2 && origin === this.#origin
          ? await this.#requestH2(this.#h2, ctx, method, parsed ?? url, path, abort)
          : await this.#requestUndici(ctx, method, origin, path, abort.signal);
      abort.until(resp.body);
      restClientRequestsTotal.inc({ code: String(resp.statusCode), host: this.host, method });
      this.#answers.answered(resp.statusCode);
      restClientRequestDuration.observe({ verb: method, host: this.host }, (performance.now() - start) / 1000);
      return new TransportResponse(resp.statusCode, resp.headers, resp.body);
    } catch (err) {
      abort.done();
      restClientRequestsTotal.inc({ code: '<error>', host: this.host, method });
      restClientRequestDuration.observe({ verb: method, host: this.host }, (performance.now() - start) / 1000);
      if (abort.aborted) throw abort.reason;
      const fenced = leaseFencedCause(err);
      if (fenced) throw fenced;
      this.#answers.unreachable();
      throw new TransportError(`${method} ${url}: ${(err as Error).message}`, err);
    }
  }

  /** Sends through the undici dispatcher: the proxy's, the `http://` server's, or one for another origin. */
  async #requestUndici(
    ctx: TransportRequest,
    method: string,
    origin: string,
    path: string,
    signal: AbortSignal | undefined,
  ): Promise<RawAnswer> {
    const dispatcher =
      (await (this.#dispatcher ??= this.#makeDispatcher())) ??
      ctx.getDispatcher() ??
      (await undici()).getGlobalDispatcher();
    if (this.#closed) throw new Error('RestTransport: closed');
    const body = ctx.getBody();
    return dispatcher.request({
      origin,
      path,
      method: method as Dispatcher.HttpMethod,
      headers: ctx.getHeaders(),
      body: (body as string | undefined) ?? null,
      ...(signal ? { signal } : {}),
    });
  }

  /**
   * Sends as one stream of the `node:http2` connection (connected first if need be). The write guard runs once the
   * connection is up, just before the stream opens, so a request that waited for the connect is not sent late. The
   * request's own header object gets the `:method` and `:path` pseudo-headers (a request is sent once).
   */
  async #requestH2(
    h2: Http2Connection,
    ctx: TransportRequest,
    method: string,
    url: URL | string,
    path: string,
    abort: RequestAbort,
  ): Promise<RawAnswer> {
    const session = h2.current() ?? (await h2.connect(abort.signal));
    if (abort.aborted) throw abort.reason as Error;
    this.#writeGuard?.(method, typeof url === 'string' ? new URL(url) : url);
    const headers: OutgoingHttpHeaders = ctx.getHeaders();
    headers[':method'] = method;
    headers[':path'] = path;
    const stream = session.request(headers, ctx.getBody() as string | undefined);
    abort.destroyOnAbort(stream);
    const answer = await responseOf(stream);
    return { statusCode: answer[':status'] ?? 0, headers: answer, body: stream };
  }

  /** `url`'s origin and path with query, without parsing it when it starts with the server's URL. */
  #splitUrl(url: string): { origin: string; path: string } {
    const next = url.charAt(this.server.length);
    if (url.startsWith(this.server) && (next === '/' || next === '?')) {
      return { origin: this.#origin, path: this.#basePath + url.slice(this.server.length) };
    }
    const u = new URL(url);
    return { origin: u.origin, path: u.pathname + u.search };
  }

  /** A client-node `HttpLibrary` sending through this transport with the given user agent. */
  httpLibrary(userAgent: string): HttpLibrary {
    return wrapHttpLibrary({
      send: async (ctx: RequestContext) => {
        const resp = await this.send(ctx, userAgent);
        const headers: Record<string, string> = {};
        resp.headers.forEach((v, k) => {
          headers[k] = v;
        });
        return new ResponseContext(resp.status, headers, {
          text: () => resp.text(),
          binary: () => resp.bytes(),
          stream: () => Readable.toWeb(resp.body) as ReadableStream<Uint8Array>,
        });
      },
    });
  }

  /**
   * A raw request to `path` (for example `/api/v1/nodes`, path segments percent-encoded), authenticated
   * from the KubeConfig. The caller reads (or cancels) the response body. Non-2xx responses are returned,
   * not thrown.
   */
  async request(path: string, userAgent: string, opts: RawRequestOptions = {}): Promise<TransportResponse> {
    const ctx = new RawRequest(this.server + path, opts.method ?? 'GET');
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined) ctx.setQueryParam(k, String(v));
    }
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
    this.#answers.close();
    this.#h2?.close();
    await (await this.#dispatcher)?.destroy().catch(() => undefined);
  }
}

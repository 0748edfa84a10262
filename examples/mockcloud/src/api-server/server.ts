/**
 * The in-memory mockcloud API server: `node:http`, JSON, bearer-token auth, the `/v1` API
 * (`api-routes.ts`), the `/admin` scripting endpoints (`admin-routes.ts`), failure injection
 * (`faults.ts`) and a bounded request log. It stands in for a vendor's REST API in tests and demos,
 * the way Hetzner, DigitalOcean and Linode test their CCMs against an httptest fake.
 *
 * Binds to 127.0.0.1 on an ephemeral port unless told otherwise.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminRouter, type RequestLogEntry } from './admin-routes.js';
import { apiRouter } from './api-routes.js';
import { FaultInjector, type FaultRule, type RateLimit } from './faults.js';
import { ApiProblem } from './problem.js';
import type { Router } from './routes.js';
import { CloudState, type ServerSeed } from './state.js';

/** Largest accepted request body, in bytes. */
const MAX_BODY_BYTES = 1 << 20;

/** An API token; `readOnly` tokens get 403 on POST, PATCH and DELETE. */
export interface ApiToken {
  token: string;
  readOnly?: boolean;
  /** Who holds the token; logged as `caller` with each request it authenticates (never the token itself). */
  name?: string;
}

/** Options of {@link MockCloudApiServer.start}. */
export interface MockCloudApiServerOptions {
  /** Interface to bind; default `127.0.0.1`. */
  host?: string;
  /** Port; default 0 (ephemeral). */
  port?: number;
  /** Accepted bearer tokens; default `['mockcloud-token']`. */
  tokens?: (string | ApiToken)[];
  /** When set, `/admin` requires `Authorization: Bearer <adminToken>`; otherwise `/admin` is open. */
  adminToken?: string;
  /** How long new load balancers stay `provisioning`, in ms; default 0. */
  provisioningDelayMs?: number;
  /** Delay added to every API request, in ms; default 0. */
  latencyMs?: number;
  /** Share of API requests (0–1) answered 503 at random; default 0. */
  failureRate?: number;
  /** Random source for `failureRate` (seed it for reproducible runs); default `Math.random`. */
  random?: () => number;
  /** A fixed-window rate limit on API requests; default none. */
  rateLimit?: RateLimit;
  /** Servers to start with. */
  servers?: ServerSeed[];
  /** How many requests the log keeps (oldest dropped first); default 1000. */
  requestLogSize?: number;
  /** The clock for provisioning and rate limiting, in epoch ms; default `Date.now`. */
  now?: () => number;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    ...(text ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } : {}),
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ApiProblem(413, 'invalid_input', 'request body too large');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ApiProblem(400, 'invalid_input', 'the body is not valid JSON');
  }
}

function bearer(req: IncomingMessage): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A running mock cloud API. Script it through {@link MockCloudApiServer.state} or the helpers below. */
export class MockCloudApiServer {
  /** Servers and load balancers. */
  readonly state: CloudState;
  /** Fault table, latency and rate limit. */
  readonly faults: FaultInjector;
  readonly #http: Server;
  readonly #tokens: Map<string, ApiToken>;
  readonly #adminToken: string | undefined;
  readonly #api: Router;
  readonly #admin: Router;
  readonly #log: RequestLogEntry[] = [];
  readonly #logSize: number;
  #origin = '';

  private constructor(options: MockCloudApiServerOptions) {
    const now = options.now ?? Date.now;
    this.state = new CloudState({ provisioningDelayMs: options.provisioningDelayMs ?? 0, now });
    this.faults = new FaultInjector(now, options.random);
    this.faults.latencyMs = options.latencyMs ?? 0;
    this.faults.failureRate = options.failureRate ?? 0;
    if (options.rateLimit) this.faults.setRateLimit(options.rateLimit);
    for (const seed of options.servers ?? []) this.state.addServer(seed);
    const tokens = (options.tokens ?? ['mockcloud-token']).map((t) => (typeof t === 'string' ? { token: t } : t));
    if (tokens.length === 0 || tokens.some((t) => !t.token)) {
      throw new Error('mockcloud-api: tokens must be a non-empty list of non-empty tokens');
    }
    this.#tokens = new Map(tokens.map((t) => [t.token, t]));
    this.#adminToken = options.adminToken;
    this.#logSize = options.requestLogSize ?? 1000;
    this.#api = apiRouter(this.state);
    this.#admin = adminRouter(this.state, this.faults, {
      entries: () => this.requests(),
      clear: () => this.clearRequests(),
    });
    this.#http = createServer((req, res) => {
      void this.#handle(req, res);
    });
    this.#http.keepAliveTimeout = 5_000;
  }

  /**
   * Starts a server and resolves once it listens.
   * @throws Error when `tokens` is empty or the address cannot be bound.
   */
  static async start(options: MockCloudApiServerOptions = {}): Promise<MockCloudApiServer> {
    const server = new MockCloudApiServer(options);
    server.#http.listen(options.port ?? 0, options.host ?? '127.0.0.1');
    await once(server.#http, 'listening');
    const addr = server.#http.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    server.#origin = `http://${host}:${addr.port}`;
    return server;
  }

  /** `http://<host>:<port>`. */
  get origin(): string {
    return this.#origin;
  }

  /** The API base URL, `http://<host>:<port>/v1` (what the provider's `apiURL` points at). */
  get url(): string {
    return `${this.#origin}/v1`;
  }

  /** Accepts another bearer token from now on. */
  addToken(token: string | ApiToken): void {
    const t = typeof token === 'string' ? { token } : token;
    if (!t.token) throw new Error('mockcloud-api: a token must be non-empty');
    this.#tokens.set(t.token, t);
  }

  /** Stops accepting a token (requests with it get 401). */
  revokeToken(token: string): void {
    this.#tokens.delete(token);
  }

  /** Adds a fault rule (see {@link FaultRule}). */
  injectFault(rule: FaultRule): void {
    this.faults.add(rule);
  }

  /** Removes all fault rules, the latency and the rate limit. */
  clearFaults(): void {
    this.faults.clear();
  }

  /** Copies of the logged requests, oldest first. */
  requests(): RequestLogEntry[] {
    return this.#log.map((e) => ({ ...e }));
  }

  /** Empties the request log. */
  clearRequests(): void {
    this.#log.length = 0;
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#http.close(() => resolve()));
    this.#http.closeAllConnections();
    await closed;
  }

  #record(entry: RequestLogEntry): void {
    this.#log.push(entry);
    if (this.#log.length > this.#logSize) this.#log.splice(0, this.#log.length - this.#logSize);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', this.#origin || 'http://127.0.0.1');
    const entry: RequestLogEntry = {
      time: Date.now(),
      method,
      path: url.pathname + url.search,
      status: 0,
      userAgent: req.headers['user-agent'],
    };
    const isAdmin = url.pathname === '/admin' || url.pathname.startsWith('/admin/');
    // Admin calls are not logged, so tests see only what the client under test sent.
    if (!isAdmin) this.#record(entry);
    try {
      const body = await readBody(req);
      let answer: { status: number; body?: unknown; headers?: Record<string, string> };
      if (isAdmin) {
        if (this.#adminToken !== undefined && bearer(req) !== this.#adminToken) {
          throw new ApiProblem(401, 'unauthorized', 'a valid admin token is required');
        }
        answer = this.#admin.handle(method, url, body);
      } else {
        const token = this.#tokens.get(bearer(req) ?? '');
        if (!token)
          throw new ApiProblem(401, 'unauthorized', 'unable to authenticate: missing or invalid bearer token');
        if (token.name !== undefined) entry.caller = token.name;
        const fault = this.faults.decide(method, url.pathname);
        if (fault.latencyMs > 0) await sleep(fault.latencyMs);
        if (fault.reset) {
          req.socket.destroy();
          return;
        }
        if (fault.status !== undefined) {
          const headers: Record<string, string> =
            fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
          const code = fault.status === 429 ? 'rate_limit_exceeded' : fault.status >= 500 ? 'server_error' : 'injected';
          throw new ApiProblem(fault.status, code, `injected fault: HTTP ${fault.status}`, headers);
        }
        if (token.readOnly && method !== 'GET' && method !== 'HEAD') {
          throw new ApiProblem(403, 'forbidden', 'this token is read-only');
        }
        answer = this.#api.handle(method, url, body);
      }
      entry.status = answer.status;
      if (!res.destroyed) send(res, answer.status, answer.body, answer.headers);
    } catch (err) {
      const problem =
        err instanceof ApiProblem
          ? err
          : new ApiProblem(500, 'server_error', `internal error: ${err instanceof Error ? err.message : String(err)}`);
      entry.status = problem.status;
      const headers: Record<string, string> = { ...problem.headers };
      if (problem.status === 401) headers['www-authenticate'] = 'Bearer realm="mockcloud"';
      if (!res.headersSent && !res.destroyed) {
        send(res, problem.status, { error: { code: problem.code, message: problem.message } }, headers);
      }
    } finally {
      entry.endTime = Date.now();
    }
  }
}

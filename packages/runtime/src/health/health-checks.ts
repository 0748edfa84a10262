/**
 * Named health checks served as `/healthz`, `/livez` and `/readyz`, with the output of
 * `k8s.io/apiserver/pkg/server/healthz` (`handleRootHealth`, `adaptCheckToHandler`):
 *
 * - `/<endpoint>`: 200 `ok` when every check passes; with `?verbose`, one `[+]<name> ok` line per
 *   check and `<endpoint> check passed`. On failure: 500 with `[+]`/`[-]<name> failed: reason withheld`
 *   lines and `<endpoint> check failed` (the reasons are logged at verbosity 2, never served).
 *   `?exclude=<name>` (repeatable) skips a check (`[+]<name> excluded: ok`).
 * - `/<endpoint>/<name>`: that check alone: 200 `ok`, or 500 `internal server error: <reason>`.
 *
 * The evaluation is a plain async function of (path, query), so the app can serve it from any server.
 */
import { errorMessage } from '@ccm-kit/cloud-provider/internal';
import { createLogger, type Logger } from '../logging.js';

/** A check: returns (or resolves) when healthy, throws (or rejects) with the reason when not. */
export type HealthCheck = () => void | Promise<void>;

/** The three health endpoints. */
export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

/** All endpoints, the default for {@link HealthChecks.add}. */
export const healthEndpoints: readonly HealthEndpoint[] = Object.freeze(['healthz', 'livez', 'readyz']);

/** An HTTP answer. */
export interface HealthResponse {
  /** The HTTP status: 200 when healthy, 500 when a check fails, 404 for an unknown check. */
  status: number;
  /** The body: `ok`, the per-check listing (`?verbose`, or on failure), or the error. */
  body: string;
  /** The response headers (`Content-Type`, `X-Content-Type-Options`). */
  headers: Record<string, string>;
}

/** The query of a request: a raw string (`verbose&exclude=x`), `URLSearchParams`, or a parsed record. */
export type HealthQuery = string | URLSearchParams | Record<string, string | readonly string[] | undefined>;

/** Options of {@link HealthChecks}. */
export interface HealthChecksOptions {
  /** Register the always-passing `ping` check first on every endpoint (default true, as the apiserver). */
  ping?: boolean;
  /** A check that has not settled after this many ms fails with a timeout (default: no limit). */
  checkTimeoutMs?: number;
  /** Where failure details are logged (default logger `healthz`). */
  logger?: Logger;
}

/** The always-passing liveness check (`healthz.PingHealthz`). */
export const pingCheck: HealthCheck = () => {};

const textHeaders = (): Record<string, string> => ({
  'Content-Type': 'text/plain; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
});

const NAME_RE = /^[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?$/;

interface Entry {
  name: string;
  check: HealthCheck;
  endpoints: ReadonlySet<HealthEndpoint>;
}

function toParams(query: HealthQuery | undefined): URLSearchParams {
  if (query === undefined) return new URLSearchParams();
  if (typeof query === 'string') return new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
  if (query instanceof URLSearchParams) return query;
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    if (typeof v === 'string') p.append(k, v);
    else for (const x of v) p.append(k, x);
  }
  return p;
}

/** A registry of named checks and their evaluation for the three endpoints. */
export class HealthChecks {
  readonly #entries: Entry[] = [];
  readonly #timeoutMs: number | undefined;
  readonly #logger: Logger;

  constructor(options: HealthChecksOptions = {}) {
    this.#timeoutMs = options.checkTimeoutMs;
    this.#logger = options.logger ?? createLogger('healthz');
    if (options.ping ?? true) this.add('ping', pingCheck);
  }

  /**
   * Registers `check` as `name` on `endpoints` (default all three).
   *
   * @throws Error when `name` is taken or not a valid path segment, or `endpoints` is empty or unknown.
   */
  add(name: string, check: HealthCheck, endpoints: readonly HealthEndpoint[] = healthEndpoints): this {
    if (!NAME_RE.test(name)) throw new Error(`health check name ${JSON.stringify(name)} is not a valid path segment`);
    if (this.#entries.some((e) => e.name === name))
      throw new Error(`health check ${JSON.stringify(name)} is already registered`);
    if (typeof check !== 'function')
      throw new TypeError(`health check ${JSON.stringify(name)}: check must be a function`);
    if (endpoints.length === 0) throw new Error(`health check ${JSON.stringify(name)}: endpoints must not be empty`);
    for (const e of endpoints) {
      if (!healthEndpoints.includes(e))
        throw new Error(`health check ${JSON.stringify(name)}: unknown endpoint ${JSON.stringify(e)}`);
    }
    this.#entries.push({ name, check, endpoints: new Set(endpoints) });
    return this;
  }

  /** Removes the check `name`; returns whether it existed. */
  remove(name: string): boolean {
    const i = this.#entries.findIndex((e) => e.name === name);
    if (i < 0) return false;
    this.#entries.splice(i, 1);
    return true;
  }

  /** The names of the checks on `endpoint`, in registration order. */
  names(endpoint: HealthEndpoint): string[] {
    return this.#entries.filter((e) => e.endpoints.has(endpoint)).map((e) => e.name);
  }

  /**
   * Answers a request for `path` (which may carry a `?query`, used when `query` is not given).
   * Resolves `undefined` for paths outside `/healthz`, `/livez` and `/readyz` (so the caller can route
   * elsewhere), 404 for an unknown check under them.
   */
  handle = async (path: string, query?: HealthQuery): Promise<HealthResponse | undefined> => {
    let p = path;
    const q = p.indexOf('?');
    if (q >= 0) {
      query ??= p.slice(q + 1);
      p = p.slice(0, q);
    }
    const m = /^\/(healthz|livez|readyz)(?:\/(.*))?$/.exec(p);
    if (!m) return undefined;
    const endpoint = m[1] as HealthEndpoint;
    const sub = m[2];
    if (sub === undefined) return this.#root(endpoint, toParams(query));
    const entry = this.#entries.find((e) => e.name === sub && e.endpoints.has(endpoint));
    if (!entry) return { status: 404, body: '404 page not found\n', headers: textHeaders() };
    const err = await this.#run(entry);
    if (err === undefined) return { status: 200, body: 'ok', headers: textHeaders() };
    return { status: 500, body: `internal server error: ${errorMessage(err)}\n`, headers: textHeaders() };
  };

  /** Runs the checks of `endpoint`; resolves the names that failed with their errors (empty: healthy). */
  async evaluate(endpoint: HealthEndpoint): Promise<Map<string, unknown>> {
    const failed = new Map<string, unknown>();
    const entries = this.#entries.filter((e) => e.endpoints.has(endpoint));
    const results = await Promise.all(entries.map((e) => this.#run(e)));
    entries.forEach((e, i) => {
      if (results[i] !== undefined) failed.set(e.name, results[i]);
    });
    return failed;
  }

  async #root(endpoint: HealthEndpoint, params: URLSearchParams): Promise<HealthResponse> {
    const excluded = new Set(params.getAll('exclude'));
    const entries = this.#entries.filter((e) => e.endpoints.has(endpoint));
    const results = await Promise.all(entries.map((e) => (excluded.has(e.name) ? undefined : this.#run(e))));
    let out = '';
    let details = '';
    const failed: string[] = [];
    entries.forEach((e, i) => {
      if (excluded.has(e.name)) {
        excluded.delete(e.name);
        out += `[+]${e.name} excluded: ok\n`;
        return;
      }
      const err = results[i];
      if (err === undefined) {
        out += `[+]${e.name} ok\n`;
      } else {
        out += `[-]${e.name} failed: reason withheld\n`;
        details += `[-]${e.name} failed: ${errorMessage(err)}\n`;
        failed.push(e.name);
      }
    });
    if (excluded.size > 0) {
      const names = [...excluded]
        .sort()
        .map((n) => JSON.stringify(n))
        .join(',');
      out += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
    }
    if (failed.length > 0) {
      this.#logger.v(2).info(`${endpoint} check failed`, { checks: failed.join(','), details });
      return { status: 500, body: `${out}${endpoint} check failed\n`, headers: textHeaders() };
    }
    if (!params.has('verbose')) return { status: 200, body: 'ok', headers: textHeaders() };
    return { status: 200, body: `${out}${endpoint} check passed\n`, headers: textHeaders() };
  }

  /** Runs one check; resolves its error, or `undefined` when it passed. */
  async #run(entry: Entry): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const run = Promise.resolve().then(entry.check);
      if (this.#timeoutMs === undefined) {
        await run;
      } else {
        const ms = this.#timeoutMs;
        await Promise.race([
          run,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`check timed out after ${ms}ms`)), ms);
          }),
        ]);
      }
      return undefined;
    } catch (err) {
      return err ?? new Error('check failed');
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }
}

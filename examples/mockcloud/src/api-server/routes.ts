/**
 * A tiny method + path router for the mock API, and the request/response shapes its handlers use.
 */
import { ApiProblem } from './problem.js';

/** A parsed request as handlers see it. */
export interface RouteRequest {
  method: string;
  url: URL;
  /** Path parameters by name, for example `{ id: 'lb-000001' }`. */
  params: Record<string, string>;
  /** The JSON body, or `undefined` without one. */
  body: unknown;
}

/** A handler's answer: status, optional JSON body and headers. */
export interface RouteResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A request handler; throws `ApiProblem` for error answers. */
export type Handler = (req: RouteRequest) => RouteResponse;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: Handler;
}

/** Routes `METHOD /path/:param` patterns to handlers. */
export class Router {
  readonly #routes: Route[] = [];

  /** Adds a route; `path` segments starting with `:` are parameters (one segment each). */
  on(method: string, path: string, handler: Handler): this {
    const names: string[] = [];
    const source = path
      .split('/')
      .map((seg) => {
        if (!seg.startsWith(':')) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(seg.slice(1));
        return '([^/]+)';
      })
      .join('/');
    this.#routes.push({ method, pattern: new RegExp(`^${source}/?$`), names, handler });
    return this;
  }

  /**
   * Runs the handler for the request.
   * @throws ApiProblem 404 for an unknown path, 405 for a known path with another method, or the handler's.
   */
  handle(method: string, url: URL, body: unknown): RouteResponse {
    let pathMatched = false;
    for (const route of this.#routes) {
      const m = route.pattern.exec(url.pathname);
      if (!m) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      const params: Record<string, string> = {};
      route.names.forEach((n, i) => {
        params[n] = decodeURIComponent(m[i + 1]!);
      });
      return route.handler({ method, url, params, body });
    }
    if (pathMatched) throw new ApiProblem(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`);
    throw new ApiProblem(404, 'not_found', `no such endpoint: ${method} ${url.pathname}`);
  }
}

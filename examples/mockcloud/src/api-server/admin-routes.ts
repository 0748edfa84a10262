/**
 * The `/admin` endpoints that script the mock cloud from outside the process (the same operations
 * are available in-process on `MockCloudApiServer`). Never subject to faults or the rate limit.
 *
 * | method | path | effect |
 * |---|---|---|
 * | GET, DELETE | `/admin/state` | the whole state / remove everything |
 * | POST | `/admin/servers` | add a server (`ServerSeed`), 201 `{ server }` |
 * | PATCH, DELETE | `/admin/servers/<id>` | change any field (for example `status: off`) / delete |
 * | POST | `/admin/load_balancers/<id>/activate` | end provisioning now |
 * | POST | `/admin/load_balancers/<id>/hold` | keep it provisioning until activated |
 * | GET, POST, DELETE | `/admin/faults` | list / add a `FaultRule` / clear rules, latency and rate limit |
 * | PUT | `/admin/settings` | `{ latency_ms?, failure_rate?, provisioning_delay_ms?, rate_limit?: { limit, window_ms } \| null }` |
 * | GET, DELETE | `/admin/requests` | the request log / clear it |
 */
import { labelMapProblems } from '../shared/labels.js';
import type { FaultInjector, FaultRule } from './faults.js';
import { faultRuleProblems } from './faults.js';
import { invalidInput, notFound } from './problem.js';
import { Router } from './routes.js';
import type { CloudState, ServerSeed } from './state.js';

/** One logged request. */
export interface RequestLogEntry {
  /** Epoch ms when the request arrived. */
  time: number;
  method: string;
  /** Path with query string. */
  path: string;
  /** The answer's status; 0 when the connection was reset. */
  status: number;
  /** Epoch ms when the answer was sent or the connection reset; absent while the request is in flight. */
  endTime?: number;
  userAgent: string | undefined;
  /** The `name` of the token that authenticated the request, when it has one. */
  caller?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonNegativeInt(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

function serverSeedProblems(body: Record<string, unknown>, create: boolean): string[] {
  const problems: string[] = [];
  if ((create || body.name !== undefined) && (typeof body.name !== 'string' || body.name === '')) {
    problems.push('name must be a non-empty string');
  }
  if (body.status !== undefined && body.status !== 'running' && body.status !== 'off') {
    problems.push('status must be running or off');
  }
  if (body.labels !== undefined) problems.push(...labelMapProblems(body.labels, 'labels'));
  for (const k of ['id', 'private_ip', 'zone', 'region', 'type']) {
    if (body[k] !== undefined && typeof body[k] !== 'string') problems.push(`${k} must be a string`);
  }
  if (body.public_ip !== undefined && body.public_ip !== null && typeof body.public_ip !== 'string') {
    problems.push('public_ip must be a string or null');
  }
  return problems;
}

/** The `/admin` router over the state, the fault table and the request log. */
export function adminRouter(
  state: CloudState,
  faults: FaultInjector,
  log: { entries(): RequestLogEntry[]; clear(): void },
): Router {
  return new Router()
    .on('GET', '/admin/state', () => ({ status: 200, body: state.snapshot() }))
    .on('DELETE', '/admin/state', () => {
      state.clear();
      return { status: 204 };
    })
    .on('POST', '/admin/servers', ({ body }) => {
      if (!isObject(body)) throw invalidInput(['the body must be a JSON object']);
      const problems = serverSeedProblems(body, true);
      if (problems.length > 0) throw invalidInput(problems);
      return { status: 201, body: { server: state.addServer(body as ServerSeed) } };
    })
    .on('PATCH', '/admin/servers/:id', ({ params, body }) => {
      if (!isObject(body)) throw invalidInput(['the body must be a JSON object']);
      const problems = serverSeedProblems(body, false);
      if (problems.length > 0) throw invalidInput(problems);
      return { status: 200, body: { server: state.updateServer(params.id!, body) } };
    })
    .on('DELETE', '/admin/servers/:id', ({ params }) => {
      if (!state.removeServer(params.id!)) throw notFound('server', params.id!);
      return { status: 204 };
    })
    .on('POST', '/admin/load_balancers/:id/activate', ({ params }) => ({
      status: 200,
      body: { load_balancer: state.activateLoadBalancer(params.id!) },
    }))
    .on('POST', '/admin/load_balancers/:id/hold', ({ params }) => {
      state.holdLoadBalancer(params.id!);
      return { status: 204 };
    })
    .on('GET', '/admin/faults', () => ({ status: 200, body: { faults: faults.list() } }))
    .on('POST', '/admin/faults', ({ body }) => {
      const problems = faultRuleProblems(body);
      if (problems.length > 0) throw invalidInput(problems);
      faults.add(body as FaultRule);
      return { status: 201, body: { faults: faults.list() } };
    })
    .on('DELETE', '/admin/faults', () => {
      faults.clear();
      return { status: 204 };
    })
    .on('PUT', '/admin/settings', ({ body }) => {
      if (!isObject(body)) throw invalidInput(['the body must be a JSON object']);
      const problems: string[] = [];
      if (body.latency_ms !== undefined && !nonNegativeInt(body.latency_ms)) {
        problems.push('latency_ms must be a non-negative integer');
      }
      const rate = body.failure_rate;
      if (rate !== undefined && (typeof rate !== 'number' || !(rate >= 0 && rate <= 1))) {
        problems.push('failure_rate must be a number in 0-1');
      }
      if (body.provisioning_delay_ms !== undefined && !nonNegativeInt(body.provisioning_delay_ms)) {
        problems.push('provisioning_delay_ms must be a non-negative integer');
      }
      const rl = body.rate_limit;
      if (
        rl !== undefined &&
        rl !== null &&
        (!isObject(rl) || !nonNegativeInt(rl.limit) || !nonNegativeInt(rl.window_ms) || rl.window_ms === 0)
      ) {
        problems.push('rate_limit must be null or { limit: integer >= 0, window_ms: integer > 0 }');
      }
      if (problems.length > 0) throw invalidInput(problems);
      if (body.latency_ms !== undefined) faults.latencyMs = body.latency_ms as number;
      if (rate !== undefined) faults.failureRate = rate as number;
      if (body.provisioning_delay_ms !== undefined) state.provisioningDelayMs = body.provisioning_delay_ms as number;
      if (rl === null) faults.setRateLimit(undefined);
      else if (isObject(rl)) faults.setRateLimit({ limit: rl.limit as number, windowMs: rl.window_ms as number });
      return { status: 204 };
    })
    .on('GET', '/admin/requests', () => ({ status: 200, body: { requests: log.entries() } }))
    .on('DELETE', '/admin/requests', () => {
      log.clear();
      return { status: 204 };
    });
}

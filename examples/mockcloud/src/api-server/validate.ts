/**
 * Request-body validation of the mock API. Every function collects all problems and throws one
 * `400 invalid_input` naming each bad field, as a real cloud API would.
 */
import { formatCIDR, tryParseCIDR } from '@ccm-kit/cloud-provider';
import { labelMapProblems } from '../shared/labels.js';
import type {
  WireHealthCheck,
  WireListener,
  WireLoadBalancerCreate,
  WireLoadBalancerUpdate,
  WireRouteCreate,
  WireServerUpdate,
  WireTarget,
} from '../wire.js';
import { invalidInput } from './problem.js';

const LB_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isPort(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 65535;
}

function nameProblems(name: unknown): string[] {
  if (typeof name !== 'string' || name.length === 0 || name.length > 63 || !LB_NAME.test(name)) {
    return ['name must be 1-63 lowercase alphanumerics or "-", starting and ending with an alphanumeric'];
  }
  return [];
}

function listenerProblems(listeners: unknown): string[] {
  if (!Array.isArray(listeners)) return ['listeners must be a list'];
  const problems: string[] = [];
  const seen = new Set<string>();
  listeners.forEach((l: unknown, i) => {
    if (!isObject(l)) {
      problems.push(`listeners[${i}] must be an object`);
      return;
    }
    if (l.protocol !== 'tcp' && l.protocol !== 'udp') problems.push(`listeners[${i}].protocol must be tcp or udp`);
    if (!isPort(l.port)) problems.push(`listeners[${i}].port must be an integer in 1-65535`);
    if (!isPort(l.target_port)) problems.push(`listeners[${i}].target_port must be an integer in 1-65535`);
    if (l.proxy_protocol !== undefined && typeof l.proxy_protocol !== 'boolean') {
      problems.push(`listeners[${i}].proxy_protocol must be a boolean`);
    }
    const key = `${String(l.protocol)}/${String(l.port)}`;
    if (seen.has(key)) problems.push(`listeners[${i}] duplicates ${key}`);
    seen.add(key);
  });
  return problems;
}

function targetProblems(targets: unknown, serverExists: (id: string) => boolean): string[] {
  if (!Array.isArray(targets)) return ['targets must be a list'];
  const problems: string[] = [];
  targets.forEach((t: unknown, i) => {
    if (!isObject(t) || typeof t.server_id !== 'string') problems.push(`targets[${i}].server_id must be a string`);
    else if (!serverExists(t.server_id)) problems.push(`targets[${i}].server_id ${t.server_id} does not exist`);
  });
  return problems;
}

function healthCheckProblems(hc: unknown): string[] {
  if (hc === null) return [];
  if (!isObject(hc)) return ['health_check must be an object or null'];
  const problems: string[] = [];
  if (hc.protocol !== 'tcp' && hc.protocol !== 'http') problems.push('health_check.protocol must be tcp or http');
  if (!isPort(hc.port)) problems.push('health_check.port must be an integer in 1-65535');
  if (hc.path !== undefined && (typeof hc.path !== 'string' || !hc.path.startsWith('/'))) {
    problems.push('health_check.path must start with "/"');
  }
  if (typeof hc.interval_seconds !== 'number' || !Number.isInteger(hc.interval_seconds) || hc.interval_seconds < 1) {
    problems.push('health_check.interval_seconds must be a positive integer');
  }
  return problems;
}

function normalizeListeners(listeners: WireListener[]): WireListener[] {
  return listeners.map((l) => ({
    protocol: l.protocol,
    port: l.port,
    target_port: l.target_port,
    proxy_protocol: l.proxy_protocol ?? false,
  }));
}

function normalizeTargets(targets: WireTarget[]): WireTarget[] {
  const ids = [...new Set(targets.map((t) => t.server_id))];
  return ids.map((server_id) => ({ server_id }));
}

function normalizeHealthCheck(hc: WireHealthCheck | null): WireHealthCheck | null {
  if (hc === null) return null;
  const out: WireHealthCheck = {
    protocol: hc.protocol,
    port: hc.port,
    interval_seconds: hc.interval_seconds,
  };
  if (hc.path !== undefined) out.path = hc.path;
  return out;
}

/**
 * Validates a `PATCH /v1/load_balancers/<id>` body (and, with `create`, a `POST` body, whose `name` is required).
 * @returns the body with defaults filled in and duplicate targets removed.
 * @throws ApiProblem 400 `invalid_input` listing every problem.
 */
export function validateLoadBalancerBody(
  body: unknown,
  serverExists: (id: string) => boolean,
  create: boolean,
): WireLoadBalancerUpdate {
  if (!isObject(body)) throw invalidInput(['the body must be a JSON object']);
  const problems: string[] = [];
  if (create || body.name !== undefined) problems.push(...nameProblems(body.name));
  if (body.labels !== undefined) problems.push(...labelMapProblems(body.labels, 'labels'));
  if (body.listeners !== undefined) problems.push(...listenerProblems(body.listeners));
  if (body.targets !== undefined) problems.push(...targetProblems(body.targets, serverExists));
  if (body.health_check !== undefined) problems.push(...healthCheckProblems(body.health_check));
  if (problems.length > 0) throw invalidInput(problems);
  const b = body as unknown as WireLoadBalancerCreate;
  const out: WireLoadBalancerUpdate = {};
  if (b.name !== undefined) out.name = b.name;
  if (b.labels !== undefined) out.labels = { ...b.labels };
  if (b.listeners !== undefined) out.listeners = normalizeListeners(b.listeners);
  if (b.targets !== undefined) out.targets = normalizeTargets(b.targets);
  if (b.health_check !== undefined) out.health_check = normalizeHealthCheck(b.health_check);
  return out;
}

/**
 * Validates a `PATCH /v1/servers/<id>` body.
 * @throws ApiProblem 400 `invalid_input` listing every problem.
 */
export function validateServerUpdate(body: unknown): WireServerUpdate {
  if (!isObject(body)) throw invalidInput(['the body must be a JSON object']);
  const problems: string[] = [];
  if (body.name !== undefined && (typeof body.name !== 'string' || body.name === '')) {
    problems.push('name must be a non-empty string');
  }
  if (body.labels !== undefined) problems.push(...labelMapProblems(body.labels, 'labels'));
  if (problems.length > 0) throw invalidInput(problems);
  const out: WireServerUpdate = {};
  if (typeof body.name === 'string') out.name = body.name;
  if (body.labels !== undefined) out.labels = { ...(body.labels as Record<string, string>) };
  return out;
}

/**
 * Validates a `POST /v1/routes` body: a name (1-63 lowercase alphanumerics or "-"), optional labels, a
 * `destination_cidr` and an existing `target_server_id`.
 * @returns the body with the CIDR in canonical network form.
 * @throws ApiProblem 400 `invalid_input` listing every problem.
 */
export function validateRouteBody(body: unknown, serverExists: (id: string) => boolean): WireRouteCreate {
  if (!isObject(body)) throw invalidInput(['the body must be a JSON object']);
  const problems = nameProblems(body.name);
  if (body.labels !== undefined) problems.push(...labelMapProblems(body.labels, 'labels'));
  const cidr = typeof body.destination_cidr === 'string' ? tryParseCIDR(body.destination_cidr) : undefined;
  if (!cidr) problems.push('destination_cidr must be a CIDR (for example 10.244.1.0/24)');
  if (typeof body.target_server_id !== 'string') problems.push('target_server_id must be a string');
  else if (!serverExists(body.target_server_id))
    problems.push(`target_server_id: server ${body.target_server_id} does not exist`);
  if (problems.length > 0) throw invalidInput(problems);
  const out: WireRouteCreate = {
    name: body.name as string,
    destination_cidr: formatCIDR(cidr!),
    target_server_id: body.target_server_id as string,
  };
  if (body.labels !== undefined) out.labels = { ...(body.labels as Record<string, string>) };
  return out;
}

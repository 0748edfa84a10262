/**
 * The Service annotations of the local provider and their validation. Every annotation under
 * `local.ccm-kit.io/` is checked before anything is allocated; problems name the annotation (or spec field)
 * and become a Warning Event on the Service (see `load-balancer.ts`).
 * {@link ANNOTATION_TABLE} is the single source of the README's annotation table.
 */
import {
  ANNOTATION_LOAD_BALANCER_SOURCE_RANGES,
  getLoadBalancerSourceRanges,
  getServiceHealthCheckPathPort,
  isAllowAll,
  needsHealthCheck,
} from '@ccm-kit/cloud-provider';
import type { V1Service } from '@kubernetes/client-node';
import { LIMITS, type LocalConfig, type PoolConfig, selectPool } from './config.js';
import { parseDurationMs } from './duration.js';
import { canonicalIP, type IPFamily } from './ip.js';
import { type FamilyRequest, familyOf, poolContains } from './ipam.js';

/** The prefix of every annotation of this provider. */
export const ANNOTATION_PREFIX = 'local.ccm-kit.io/';
/** Pool name to allocate from. */
export const ANNOTATION_POOL = 'local.ccm-kit.io/pool';
/** Static addresses, comma separated, at most one per family. */
export const ANNOTATION_IPS = 'local.ccm-kit.io/ips';
/** Backend choice: `round-robin` or `source-hash`. */
export const ANNOTATION_ALGORITHM = 'local.ccm-kit.io/algorithm';
/** Health-check period of the backends, a duration. */
export const ANNOTATION_HEALTH_CHECK_INTERVAL = 'local.ccm-kit.io/health-check-interval';
/** Time allowed to connect to a backend, a duration. */
export const ANNOTATION_CONNECT_TIMEOUT = 'local.ccm-kit.io/connect-timeout';
/** Alias of `service.beta.kubernetes.io/load-balancer-source-ranges`. */
export const ANNOTATION_SOURCE_RANGES = 'local.ccm-kit.io/source-ranges';
/** PROXY protocol header toward the backends of TCP ports: `v1` or `v2`. */
export const ANNOTATION_PROXY_PROTOCOL = 'local.ccm-kit.io/proxy-protocol';
/** Idle timeout of UDP flows, a duration. */
export const ANNOTATION_UDP_IDLE_TIMEOUT = 'local.ccm-kit.io/udp-idle-timeout';
/** Written by the provider: the Service's allocated addresses. Do not edit. */
export const ANNOTATION_ALLOCATED_IPS = 'local.ccm-kit.io/allocated-ips';

/** One row of the annotation table (README). */
export interface AnnotationDoc {
  readonly name: string;
  readonly values: string;
  readonly default: string;
  readonly description: string;
}

/** Every annotation, with its values, default and meaning. */
export const ANNOTATION_TABLE: readonly AnnotationDoc[] = [
  {
    name: ANNOTATION_POOL,
    values: 'a pool name',
    default: "the namespace's pool, else `global`",
    description: 'Pool to allocate from. A pool that lists namespaces serves only those.',
  },
  {
    name: ANNOTATION_IPS,
    values: 'comma-separated addresses, at most one IPv4 and one IPv6',
    default: '`spec.loadBalancerIP`, else allocated',
    description: "Static addresses; each must lie in the Service's pool and be free.",
  },
  {
    name: ANNOTATION_ALGORITHM,
    values: '`round-robin` \\| `source-hash`',
    default: '`source-hash` with `sessionAffinity: ClientIP`, else `round-robin`',
    description: 'How the proxy picks a healthy backend for each connection or UDP flow.',
  },
  {
    name: ANNOTATION_HEALTH_CHECK_INTERVAL,
    values: 'a duration, 100ms..1h',
    default: '`healthCheckInterval` of the config (5s)',
    description:
      'Period of the health checks: TCP connects, or `GET /healthz` on the `healthCheckNodePort` with `externalTrafficPolicy: Local` (unhealthy after 2 failures, healthy after 1 success).',
  },
  {
    name: ANNOTATION_CONNECT_TIMEOUT,
    values: 'a duration, 100ms..5m',
    default: '`connectTimeout` of the config (5s)',
    description: 'Time the proxy waits to connect to a backend before trying the next one.',
  },
  {
    name: ANNOTATION_SOURCE_RANGES,
    values: 'comma-separated CIDRs',
    default: 'allow all',
    description:
      'Alias of `service.beta.kubernetes.io/load-balancer-source-ranges` (both set: they must agree); `spec.loadBalancerSourceRanges` wins. Other sources are disconnected at once.',
  },
  {
    name: ANNOTATION_PROXY_PROTOCOL,
    values: '`v1` \\| `v2`',
    default: 'off',
    description:
      'TCP ports send the HAProxy PROXY protocol header (client and load-balancer address and port) to the backend first; the status gets `ipMode: Proxy`. UDP ports are forwarded without it.',
  },
  {
    name: ANNOTATION_UDP_IDLE_TIMEOUT,
    values: 'a duration, 100ms..1h',
    default: '`udpIdleTimeout` of the config (1m)',
    description: 'A UDP flow (client address and port) with no datagram either way for this long is closed.',
  },
  {
    name: ANNOTATION_ALLOCATED_IPS,
    values: 'comma-separated addresses',
    default: '(written by the provider)',
    description: 'The allocation record, read back after a restart. Do not edit.',
  },
];

const KNOWN = new Set(ANNOTATION_TABLE.map((a) => a.name));

/** Backend selection. */
export type Algorithm = 'round-robin' | 'source-hash';

/** Where kube-proxy reports whether a node has a ready endpoint of the Service. */
export interface HealthCheckNodePort {
  readonly port: number;
  readonly path: string;
}

/** PROXY protocol version (HAProxy spec): text (`v1`) or binary (`v2`). */
export type ProxyProtocolVersion = 'v1' | 'v2';

/** A Service port the proxy serves. */
export interface ProxyPort {
  readonly name?: string;
  readonly protocol: 'TCP' | 'UDP';
  readonly port: number;
  readonly nodePort: number;
}

/** Everything the load balancer needs from a valid Service. Durations in milliseconds. */
export interface LoadBalancerOptions {
  readonly pool: PoolConfig;
  readonly families: readonly FamilyRequest[];
  /** Canonical static addresses; empty when the addresses are allocated. */
  readonly staticIPs: readonly string[];
  readonly algorithm: Algorithm;
  readonly healthCheckIntervalMs: number;
  readonly connectTimeoutMs: number;
  readonly udpIdleTimeoutMs: number;
  /** Allowed client CIDRs (normalized); `undefined` allows every client. */
  readonly sourceRanges?: readonly string[];
  /** TCP and UDP ports (proxy mode); empty in `none` mode. */
  readonly ports: readonly ProxyPort[];
  /** The PROXY protocol header sent to TCP backends; `undefined` when off. */
  readonly proxyProtocol?: ProxyProtocolVersion;
  /**
   * With `externalTrafficPolicy: Local`: nodes are checked with `GET <path>` (`/healthz`) on
   * `spec.healthCheckNodePort` (`port`); `undefined` with `Cluster` (TCP checks of the node ports).
   */
  readonly healthCheck?: HealthCheckNodePort;
}

/** A validation problem: `field` is an annotation name or a spec path. */
export interface Problem {
  readonly kind: 'annotation' | 'spec';
  readonly field: string;
  readonly message: string;
}

/** The result of {@link parseLoadBalancerOptions}. */
export type ParseResult = { ok: true; options: LoadBalancerOptions } | { ok: false; problems: Problem[] };

function duration(
  value: string | undefined,
  name: string,
  fallbackMs: number,
  limits: { min: number; max: number },
  problems: Problem[],
): number {
  if (value === undefined) return fallbackMs;
  try {
    const ms = parseDurationMs(value);
    if (ms >= limits.min && ms <= limits.max) return ms;
    problems.push({
      kind: 'annotation',
      field: name,
      message: `${value} is out of range (${limits.min}ms..${limits.max}ms)`,
    });
  } catch (err) {
    problems.push({ kind: 'annotation', field: name, message: (err as Error).message });
  }
  return fallbackMs;
}

function families(service: V1Service): FamilyRequest[] {
  const listed = (service.spec?.ipFamilies ?? []).filter((f): f is IPFamily => f === 'IPv4' || f === 'IPv6');
  const primary = listed[0] ?? 'IPv4';
  const other: IPFamily = listed[1] ?? (primary === 'IPv4' ? 'IPv6' : 'IPv4');
  switch (service.spec?.ipFamilyPolicy) {
    case 'RequireDualStack':
      return [
        { family: primary, required: true },
        { family: other, required: true },
      ];
    case 'PreferDualStack':
      return [
        { family: primary, required: true },
        { family: other, required: false },
      ];
    default:
      return [{ family: primary, required: true }];
  }
}

function staticIPs(service: V1Service, pool: PoolConfig | undefined, problems: Problem[]): string[] {
  const fromAnnotation = service.metadata?.annotations?.[ANNOTATION_IPS];
  const field = fromAnnotation !== undefined ? ANNOTATION_IPS : 'spec.loadBalancerIP';
  const raw = fromAnnotation ?? service.spec?.loadBalancerIP ?? '';
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (fromAnnotation !== undefined && items.length === 0) {
    problems.push({ kind: 'annotation', field, message: 'is empty; remove it or list addresses' });
    return [];
  }
  const kind = fromAnnotation !== undefined ? 'annotation' : 'spec';
  const out: string[] = [];
  for (const item of items) {
    const ip = canonicalIP(item);
    if (ip === undefined) {
      problems.push({ kind, field, message: `"${item}" is not an IP address` });
      continue;
    }
    if (out.some((o) => familyOf(o) === familyOf(ip))) {
      problems.push({
        kind,
        field,
        message: `lists more than one ${familyOf(ip)} address`,
      });
      continue;
    }
    if (pool && !poolContains(pool, ip)) {
      problems.push({
        kind,
        field,
        message: `${ip} is not in pool "${pool.name}" (${pool.addresses.join(', ')})`,
      });
      continue;
    }
    out.push(ip);
  }
  const policy = service.spec?.ipFamilyPolicy ?? 'SingleStack';
  if (policy === 'SingleStack' && out.length > 1) {
    problems.push({ kind, field, message: 'lists two addresses but ipFamilyPolicy is SingleStack' });
  }
  if (policy === 'RequireDualStack' && out.length === 1) {
    problems.push({
      kind,
      field,
      message: 'lists one address but ipFamilyPolicy RequireDualStack needs one of each family',
    });
  }
  return out;
}

function sourceRanges(service: V1Service, problems: Problem[]): string[] | undefined {
  const annotations = service.metadata?.annotations ?? {};
  const alias = annotations[ANNOTATION_SOURCE_RANGES];
  const upstream = annotations[ANNOTATION_LOAD_BALANCER_SOURCE_RANGES];
  const fromSpec = (service.spec?.loadBalancerSourceRanges ?? []).length > 0;
  let value = upstream;
  let field = ANNOTATION_LOAD_BALANCER_SOURCE_RANGES;
  if (!fromSpec && alias !== undefined) {
    if (upstream !== undefined && upstream.trim() !== alias.trim()) {
      problems.push({
        kind: 'annotation',
        field: ANNOTATION_SOURCE_RANGES,
        message: `disagrees with ${ANNOTATION_LOAD_BALANCER_SOURCE_RANGES}; set one of them`,
      });
      return undefined;
    }
    value = alias;
    field = ANNOTATION_SOURCE_RANGES;
  }
  if (!fromSpec && (value === undefined || value.trim() === '')) return undefined;
  try {
    const ranges = getLoadBalancerSourceRanges({
      metadata: {
        annotations: value === undefined ? {} : { [ANNOTATION_LOAD_BALANCER_SOURCE_RANGES]: value },
      },
      spec: { loadBalancerSourceRanges: service.spec?.loadBalancerSourceRanges ?? [] },
    });
    return isAllowAll(ranges) ? undefined : [...ranges];
  } catch (err) {
    const message = (err as Error).message.replace(ANNOTATION_LOAD_BALANCER_SOURCE_RANGES, field);
    problems.push({
      kind: fromSpec ? 'spec' : 'annotation',
      field: fromSpec ? 'spec.loadBalancerSourceRanges' : field,
      message,
    });
    return undefined;
  }
}

function ports(service: V1Service, problems: Problem[]): ProxyPort[] {
  const out: ProxyPort[] = [];
  (service.spec?.ports ?? []).forEach((p, i) => {
    const label = `spec.ports[${i}]${p.name ? ` (${p.name})` : ''}`;
    const protocol = p.protocol ?? 'TCP';
    if (protocol !== 'TCP' && protocol !== 'UDP') {
      problems.push({
        kind: 'spec',
        field: label,
        message: `protocol ${protocol} is not supported by the local proxy data plane (TCP and UDP only)`,
      });
      return;
    }
    if (!p.nodePort) {
      problems.push({
        kind: 'spec',
        field: label,
        message: 'has no nodePort (allocateLoadBalancerNodePorts: false?); the proxy forwards to node ports',
      });
      return;
    }
    out.push({ protocol, port: p.port, nodePort: p.nodePort, ...(p.name ? { name: p.name } : {}) });
  });
  if (out.length === 0 && problems.length === 0) {
    problems.push({ kind: 'spec', field: 'spec.ports', message: 'the Service has no ports' });
  }
  return out;
}

function proxyProtocol(value: string | undefined, problems: Problem[]): ProxyProtocolVersion | undefined {
  if (value === undefined || value === 'v1' || value === 'v2') return value;
  problems.push({
    kind: 'annotation',
    field: ANNOTATION_PROXY_PROTOCOL,
    message: `must be v1 or v2, got "${value}"`,
  });
  return undefined;
}

/**
 * The health-check node port and path when `externalTrafficPolicy` is `Local` (the API server allocates the
 * port), as upstream `GetServiceHealthCheckPathPort` (k8s.io/cloud-provider `service/helpers/helper.go`).
 */
function healthCheckNodePort(service: V1Service, problems: Problem[]): HealthCheckNodePort | undefined {
  if (!needsHealthCheck(service)) return undefined;
  const { port, path } = getServiceHealthCheckPathPort(service);
  if (port !== 0) return { port, path };
  problems.push({
    kind: 'spec',
    field: 'spec.healthCheckNodePort',
    message: 'is unset although externalTrafficPolicy is Local; the proxy checks nodes there',
  });
  return undefined;
}

/**
 * Validates the Service's annotations (and, in `proxy` mode, its ports) against `config` and returns the
 * options of its load balancer, or every problem found.
 */
export function parseLoadBalancerOptions(service: V1Service, config: LocalConfig): ParseResult {
  const problems: Problem[] = [];
  const annotations = service.metadata?.annotations ?? {};
  for (const key of Object.keys(annotations)) {
    if (key.startsWith(ANNOTATION_PREFIX) && !KNOWN.has(key)) {
      problems.push({
        kind: 'annotation',
        field: key,
        message: `unknown annotation (known: ${[...KNOWN].join(', ')})`,
      });
    }
  }
  let pool: PoolConfig | undefined;
  try {
    pool = selectPool(config, service.metadata?.namespace ?? 'default', annotations[ANNOTATION_POOL]);
  } catch (err) {
    problems.push({
      kind: annotations[ANNOTATION_POOL] !== undefined ? 'annotation' : 'spec',
      field: annotations[ANNOTATION_POOL] !== undefined ? ANNOTATION_POOL : 'metadata.namespace',
      message: (err as Error).message,
    });
  }
  const statics = staticIPs(service, pool, problems);
  const algorithmValue = annotations[ANNOTATION_ALGORITHM];
  let algorithm: Algorithm = service.spec?.sessionAffinity === 'ClientIP' ? 'source-hash' : 'round-robin';
  if (algorithmValue !== undefined) {
    if (algorithmValue === 'round-robin' || algorithmValue === 'source-hash') algorithm = algorithmValue;
    else {
      problems.push({
        kind: 'annotation',
        field: ANNOTATION_ALGORITHM,
        message: `must be round-robin or source-hash, got "${algorithmValue}"`,
      });
    }
  }
  const healthCheckIntervalMs = duration(
    annotations[ANNOTATION_HEALTH_CHECK_INTERVAL],
    ANNOTATION_HEALTH_CHECK_INTERVAL,
    config.healthCheckIntervalMs,
    LIMITS.healthCheckIntervalMs,
    problems,
  );
  const connectTimeoutMs = duration(
    annotations[ANNOTATION_CONNECT_TIMEOUT],
    ANNOTATION_CONNECT_TIMEOUT,
    config.connectTimeoutMs,
    LIMITS.connectTimeoutMs,
    problems,
  );
  const udpIdleTimeoutMs = duration(
    annotations[ANNOTATION_UDP_IDLE_TIMEOUT],
    ANNOTATION_UDP_IDLE_TIMEOUT,
    config.udpIdleTimeoutMs,
    LIMITS.udpIdleTimeoutMs,
    problems,
  );
  const ranges = sourceRanges(service, problems);
  const header = proxyProtocol(annotations[ANNOTATION_PROXY_PROTOCOL], problems);
  const proxyPorts = config.dataPlane === 'proxy' ? ports(service, problems) : [];
  const healthCheck = config.dataPlane === 'proxy' ? healthCheckNodePort(service, problems) : undefined;
  if (problems.length > 0 || pool === undefined) return { ok: false, problems };
  return {
    ok: true,
    options: {
      pool,
      families: families(service),
      staticIPs: statics,
      algorithm,
      healthCheckIntervalMs,
      connectTimeoutMs,
      udpIdleTimeoutMs,
      ports: proxyPorts,
      ...(ranges ? { sourceRanges: ranges } : {}),
      ...(header ? { proxyProtocol: header } : {}),
      ...(healthCheck ? { healthCheck } : {}),
    },
  };
}

/** Reads the allocation annotation: its canonical addresses, skipping anything that is not one. */
export function parseAllocatedIPs(service: V1Service): string[] {
  const value = service.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS] ?? '';
  const out: string[] = [];
  for (const item of value.split(',')) {
    const ip = canonicalIP(item);
    if (ip !== undefined && !out.includes(ip)) out.push(ip);
  }
  return out;
}

/** Formats problems for an error message or Event: `field: message; field: message`. */
export function formatProblems(problems: readonly Problem[]): string {
  return problems
    .map((p) => (p.message.startsWith(p.field) ? p.message : `${p.field}: ${p.message}`))
    .join('; ');
}

/** The annotation table as Markdown (the README's table is this output). */
export function annotationTableMarkdown(): string {
  const rows = ANNOTATION_TABLE.map(
    (a) => `| \`${a.name}\` | ${a.values} | ${a.default} | ${a.description} |`,
  );
  return ['| Annotation | Values | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * The Service annotations of the local provider, declared once with `defineAnnotations` from
 * `@ccm-kit/cloud-provider` ({@link LOCAL_ANNOTATIONS}), and the validation of a Service against the
 * configuration. Every annotation under `local.ccm-kit.io/` is checked before anything is allocated (an unknown
 * one too, so a typo never passes silently); problems name the annotation (or spec field) and become a Warning
 * Event on the Service (see `load-balancer.ts`). The same declaration renders the README's annotation table.
 */
import {
  ANNOTATION_LOAD_BALANCER_SOURCE_RANGES,
  defineAnnotations,
  getLoadBalancerSourceRanges,
  InvalidAnnotationError,
  getServiceHealthCheckPathPort,
  isAllowAll,
  needsHealthCheck,
} from '@ccm-kit/cloud-provider';
import type { V1Service } from '@kubernetes/client-node';
import { LIMITS, type LocalConfig, type PoolConfig, selectPool } from './config.js';
import { canonicalIP, type IPFamily } from './ip.js';
import { type FamilyRequest, poolContains } from './ipam.js';

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

/** Every Service annotation of the provider: the parser and the README's table. */
export const LOCAL_ANNOTATIONS = defineAnnotations(
  {
    pool: {
      name: ANNOTATION_POOL,
      type: 'string',
      patternText: 'a pool name',
      defaultText: "the namespace's pool, else `global`",
      description: 'Pool to allocate from. A pool that lists namespaces serves only those.',
    },
    ips: {
      name: ANNOTATION_IPS,
      type: 'ip-list',
      onePerFamily: true,
      defaultText: '`spec.loadBalancerIP`, else allocated',
      description: "Static addresses; each must lie in the Service's pool and be free.",
    },
    algorithm: {
      name: ANNOTATION_ALGORITHM,
      type: 'enum',
      values: ['round-robin', 'source-hash'],
      defaultText: '`source-hash` with `sessionAffinity: ClientIP`, else `round-robin`',
      description: 'How the proxy picks a healthy backend for each connection or UDP flow.',
    },
    healthCheckInterval: {
      name: ANNOTATION_HEALTH_CHECK_INTERVAL,
      type: 'duration',
      minMs: LIMITS.healthCheckIntervalMs.min,
      maxMs: LIMITS.healthCheckIntervalMs.max,
      defaultText: '`healthCheckInterval` of the config (5s)',
      description:
        'Period of the health checks: TCP connects, or `GET /healthz` on the `healthCheckNodePort` with `externalTrafficPolicy: Local` (unhealthy after 2 failures, healthy after 1 success).',
    },
    connectTimeout: {
      name: ANNOTATION_CONNECT_TIMEOUT,
      type: 'duration',
      minMs: LIMITS.connectTimeoutMs.min,
      maxMs: LIMITS.connectTimeoutMs.max,
      defaultText: '`connectTimeout` of the config (5s)',
      description: 'Time the proxy waits to connect to a backend before trying the next one.',
    },
    sourceRanges: {
      name: ANNOTATION_SOURCE_RANGES,
      type: 'cidr-list',
      defaultText: 'allow all',
      description:
        'Alias of `service.beta.kubernetes.io/load-balancer-source-ranges` (both set: they must agree); `spec.loadBalancerSourceRanges` wins. Other sources are disconnected at once.',
    },
    proxyProtocol: {
      name: ANNOTATION_PROXY_PROTOCOL,
      type: 'enum',
      values: ['v1', 'v2'],
      defaultText: 'off',
      description:
        'TCP ports send the HAProxy PROXY protocol header (client and load-balancer address and port) to the backend first; the status gets `ipMode: Proxy`. UDP ports are forwarded without it.',
    },
    udpIdleTimeout: {
      name: ANNOTATION_UDP_IDLE_TIMEOUT,
      type: 'duration',
      minMs: LIMITS.udpIdleTimeoutMs.min,
      maxMs: LIMITS.udpIdleTimeoutMs.max,
      defaultText: '`udpIdleTimeout` of the config (1m)',
      description: 'A UDP flow (client address and port) with no datagram either way for this long is closed.',
    },
    allocatedIPs: {
      // Free text to the parser: a damaged record must not block the Service (see parseAllocatedIPs).
      name: ANNOTATION_ALLOCATED_IPS,
      type: 'string',
      patternText: 'comma-separated addresses',
      defaultText: '(written by the provider)',
      description: 'The allocation record, read back after a restart. Do not edit.',
    },
  },
  { prefix: ANNOTATION_PREFIX },
);

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
  /** The expected form, when the annotation parser found the problem. */
  readonly expected?: string;
}

/** The result of {@link parseLoadBalancerOptions}. */
export type ParseResult = { ok: true; options: LoadBalancerOptions } | { ok: false; problems: Problem[] };

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

/**
 * The static addresses: the `ips` annotation (already parsed: canonical, at most one per family), else
 * `spec.loadBalancerIP`; each must lie in the pool, and their number must suit `ipFamilyPolicy`.
 */
function staticIPs(
  service: V1Service,
  fromAnnotation: readonly string[] | undefined,
  pool: PoolConfig | undefined,
  problems: Problem[],
): string[] {
  const kind = fromAnnotation !== undefined ? 'annotation' : 'spec';
  const field = fromAnnotation !== undefined ? ANNOTATION_IPS : 'spec.loadBalancerIP';
  if (fromAnnotation !== undefined && fromAnnotation.length === 0) {
    problems.push({ kind, field, message: 'is empty; remove it or list addresses' });
    return [];
  }
  let candidates: readonly string[] = fromAnnotation ?? [];
  const specIP = service.spec?.loadBalancerIP?.trim();
  if (fromAnnotation === undefined && specIP) {
    const ip = canonicalIP(specIP);
    if (ip === undefined) problems.push({ kind, field, message: `"${specIP}" is not an IP address` });
    candidates = ip === undefined ? [] : [ip];
  }
  const out: string[] = [];
  for (const ip of candidates) {
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

/**
 * The allowed client ranges: `spec.loadBalancerSourceRanges`, else the upstream annotation or its alias (which
 * must agree), as upstream `GetLoadBalancerSourceRanges`; `undefined` allows everyone. `aliasValid` is false when
 * the alias was already reported as malformed.
 */
function sourceRanges(service: V1Service, aliasValid: boolean, problems: Problem[]): string[] | undefined {
  const annotations = service.metadata?.annotations ?? {};
  const alias = annotations[ANNOTATION_SOURCE_RANGES];
  const upstream = annotations[ANNOTATION_LOAD_BALANCER_SOURCE_RANGES];
  const fromSpec = (service.spec?.loadBalancerSourceRanges ?? []).length > 0;
  let value = upstream;
  if (!fromSpec && alias !== undefined) {
    if (!aliasValid) return undefined;
    if (upstream !== undefined && upstream.trim() !== alias.trim()) {
      problems.push({
        kind: 'annotation',
        field: ANNOTATION_SOURCE_RANGES,
        message: `disagrees with ${ANNOTATION_LOAD_BALANCER_SOURCE_RANGES}; set one of them`,
      });
      return undefined;
    }
    value = alias;
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
    problems.push({
      kind: fromSpec ? 'spec' : 'annotation',
      field: fromSpec ? 'spec.loadBalancerSourceRanges' : ANNOTATION_LOAD_BALANCER_SOURCE_RANGES,
      message: (err as Error).message,
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
  const defaults = {
    algorithm: service.spec?.sessionAffinity === 'ClientIP' ? 'source-hash' : 'round-robin',
    healthCheckInterval: config.healthCheckIntervalMs,
    connectTimeout: config.connectTimeoutMs,
    udpIdleTimeout: config.udpIdleTimeoutMs,
  } as const;
  const parsed = LOCAL_ANNOTATIONS.parse(service, defaults);
  const invalid = new Set(parsed.ok ? [] : parsed.problems.map((p) => p.annotation));
  for (const p of parsed.ok ? [] : parsed.problems) {
    // The parser's message starts with `annotation <name>`; the field carries the name here.
    const message = p.message.replace(`annotation ${p.annotation}: `, '').replace(`annotation ${p.annotation} `, '');
    problems.push({ kind: 'annotation', field: p.annotation, message, expected: p.expected });
  }
  // The checks below also run when some annotations are bad, on the good ones, so every problem is reported
  // at once: parse again without the bad ones.
  const values = parsed.ok
    ? parsed.values
    : LOCAL_ANNOTATIONS.parseOrThrow(
        Object.fromEntries(Object.entries(annotations).filter(([k]) => !invalid.has(k))),
        defaults,
      );
  let pool: PoolConfig | undefined;
  try {
    pool = selectPool(config, service.metadata?.namespace ?? 'default', values.pool);
  } catch (err) {
    problems.push({
      kind: values.pool !== undefined ? 'annotation' : 'spec',
      field: values.pool !== undefined ? ANNOTATION_POOL : 'metadata.namespace',
      message: (err as Error).message,
    });
  }
  const statics = invalid.has(ANNOTATION_IPS) ? [] : staticIPs(service, values.ips, pool, problems);
  const ranges = sourceRanges(service, !invalid.has(ANNOTATION_SOURCE_RANGES), problems);
  const proxyPorts = config.dataPlane === 'proxy' ? ports(service, problems) : [];
  const healthCheck = config.dataPlane === 'proxy' ? healthCheckNodePort(service, problems) : undefined;
  if (problems.length > 0 || pool === undefined) return { ok: false, problems };
  return {
    ok: true,
    options: {
      pool,
      families: families(service),
      staticIPs: statics,
      // Present through `defaults`; the parser's types cannot know that.
      algorithm: values.algorithm ?? defaults.algorithm,
      healthCheckIntervalMs: values.healthCheckInterval ?? defaults.healthCheckInterval,
      connectTimeoutMs: values.connectTimeout ?? defaults.connectTimeout,
      udpIdleTimeoutMs: values.udpIdleTimeout ?? defaults.udpIdleTimeout,
      ports: proxyPorts,
      ...(ranges ? { sourceRanges: ranges } : {}),
      ...(values.proxyProtocol ? { proxyProtocol: values.proxyProtocol } : {}),
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
  return problems.map(problemText).join('; ');
}

/** One problem as text: `field: message`. */
function problemText(p: Problem): string {
  return p.message.startsWith(p.field) ? p.message : `${p.field}: ${p.message}`;
}

/**
 * The annotation problems among `problems` as the SDK's `InvalidAnnotationError` (for callers that look for
 * it with `findError`), or `undefined` when there are none.
 */
export function invalidAnnotationError(
  service: V1Service,
  problems: readonly Problem[],
): InvalidAnnotationError | undefined {
  const annotations = service.metadata?.annotations ?? {};
  const found = problems
    .filter((p) => p.kind === 'annotation')
    .map((p) => ({
      annotation: p.field,
      value: annotations[p.field] ?? '',
      expected: p.expected ?? 'a value that fits the Service (see the message)',
      message: problemText(p),
    }));
  if (found.length === 0) return undefined;
  return new InvalidAnnotationError(found, `${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`);
}

/** The annotation table as Markdown (the README's table is this output). */
export function annotationTableMarkdown(): string {
  return LOCAL_ANNOTATIONS.markdownTable();
}

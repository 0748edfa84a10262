/**
 * What a Service asks of its mockcloud load balancer: listeners, health check, PROXY protocol and which
 * Nodes become targets. Pure functions; every error names the Service and the field or annotation to fix.
 */
import { type AnnotationProblem, getServiceHealthCheckPathPort, InvalidAnnotationError } from '@ccm-kit/cloud-provider';
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';
import type { CloudLoadBalancer, HealthCheck, Listener } from '../client/index.js';
import { type LabelSelector, LabelSyntaxError, parseLabelSelector } from '../shared/labels.js';
import { SERVICE_ANNOTATIONS } from './annotations.js';
import { ANNOTATION_NODE_SELECTOR } from './names.js';
import { serverIDFromProviderID } from './provider-id.js';

/** kube-proxy's health endpoint, checked on every node for `externalTrafficPolicy: Cluster`. */
export const KUBE_PROXY_HEALTHZ_PORT = 10256;

/** The load balancer a Service wants (without targets). */
export interface DesiredLoadBalancer {
  listeners: Listener[];
  healthCheck: HealthCheck;
  proxyProtocol: boolean;
  /** From the node-selector annotation; `undefined` selects every Node the controller passes. */
  nodeSelector?: LabelSelector;
}

function serviceKey(svc: V1Service): string {
  return `${svc.metadata?.namespace ?? ''}/${svc.metadata?.name ?? ''}`;
}

/**
 * Reads the Service's ports and mockcloud annotations ({@link SERVICE_ANNOTATIONS}).
 * @param healthCheckIntervalSeconds - the configured health-check interval, in seconds (the annotation's default).
 * @throws Error `mockcloud: service <ns>/<name>: <problem>; <problem>` naming every bad port and annotation
 *   (SCTP ports, missing nodePorts, annotation values of the wrong form, a malformed node selector, unknown
 *   annotations under the prefix); when annotations are among them, its `cause` is an `InvalidAnnotationError`.
 */
export function desiredLoadBalancer(svc: V1Service, healthCheckIntervalSeconds: number): DesiredLoadBalancer {
  const key = serviceKey(svc);
  const annotationProblems: AnnotationProblem[] = [];
  const problems: string[] = [];

  const parsed = SERVICE_ANNOTATIONS.parse(svc, { healthCheckInterval: healthCheckIntervalSeconds * 1000 });
  if (!parsed.ok) annotationProblems.push(...parsed.problems);
  const values = parsed.ok ? parsed.values : undefined;
  const proxyProtocol = values?.proxyProtocol ?? false;
  const intervalSeconds = Math.ceil((values?.healthCheckInterval ?? healthCheckIntervalSeconds * 1000) / 1000);

  let nodeSelector: LabelSelector | undefined;
  // A free-form string to the annotation parser: read it directly, so it is checked even when others are bad.
  const ns = svc.metadata?.annotations?.[ANNOTATION_NODE_SELECTOR];
  if (ns !== undefined) {
    try {
      nodeSelector = parseLabelSelector(ns);
    } catch (err) {
      if (!(err instanceof LabelSyntaxError)) throw err;
      annotationProblems.push({
        annotation: ANNOTATION_NODE_SELECTOR,
        value: ns,
        expected: SERVICE_ANNOTATIONS.specs.nodeSelector.patternText,
        message: `annotation ${ANNOTATION_NODE_SELECTOR}: ${err.message}`,
      });
    }
  }
  problems.push(...annotationProblems.map((p) => p.message));

  const listeners: Listener[] = [];
  for (const [i, port] of (svc.spec?.ports ?? []).entries()) {
    const label = port.name ? `port "${port.name}"` : `ports[${i}]`;
    const protocol = (port.protocol ?? 'TCP').toUpperCase();
    if (protocol !== 'TCP' && protocol !== 'UDP') {
      problems.push(`${label} uses protocol ${protocol}; mockcloud load balancers support TCP and UDP`);
      continue;
    }
    if (!port.nodePort) {
      problems.push(`${label} has no nodePort (allocateLoadBalancerNodePorts must not be false)`);
      continue;
    }
    listeners.push({
      protocol: protocol === 'TCP' ? 'tcp' : 'udp',
      port: port.port,
      targetPort: port.nodePort,
      proxyProtocol: proxyProtocol && protocol === 'TCP',
    });
  }
  if (listeners.length === 0 && problems.length === 0) problems.push('the Service has no ports');
  if (problems.length > 0) {
    throw new Error(`mockcloud: service ${key}: ${problems.join('; ')}`, {
      cause: annotationProblems.length > 0 ? new InvalidAnnotationError(annotationProblems, key) : undefined,
    });
  }

  // externalTrafficPolicy Local: the Service's own health node port; Cluster: kube-proxy on every node.
  const hc = getServiceHealthCheckPathPort(svc);
  const healthCheck: HealthCheck =
    hc.port !== 0
      ? { protocol: 'http', port: hc.port, path: hc.path, intervalSeconds }
      : {
          protocol: 'http',
          port: KUBE_PROXY_HEALTHZ_PORT,
          path: '/healthz',
          intervalSeconds,
        };

  const out: DesiredLoadBalancer = { listeners, healthCheck, proxyProtocol };
  if (nodeSelector) out.nodeSelector = nodeSelector;
  return out;
}

/** A Node that did not become a target, and why. */
export interface SkippedNode {
  node: string;
  reason: string;
  /** True when the providerID is a mockcloud ID of a server that is not known. */
  unknownServer?: true;
}

/**
 * The target server IDs for `nodes`: Nodes matching the selector whose providerID is a mockcloud ID of a
 * known server. Nodes without a providerID, with a foreign one, or with an unknown server are skipped,
 * never fatal (hcloud#530).
 * @param knownServer - whether a server ID exists.
 */
export function selectTargets(
  nodes: readonly V1Node[],
  nodeSelector: LabelSelector | undefined,
  knownServer: (id: string) => boolean,
): { serverIDs: string[]; skipped: SkippedNode[] } {
  const ids = new Set<string>();
  const skipped: SkippedNode[] = [];
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    if (nodeSelector && !nodeSelector.matches(node.metadata?.labels)) continue;
    const pid = node.spec?.providerID ?? '';
    if (pid === '') {
      skipped.push({ node: name, reason: 'no providerID yet' });
      continue;
    }
    let id: string | undefined;
    try {
      id = serverIDFromProviderID(pid);
    } catch (err) {
      skipped.push({ node: name, reason: (err as Error).message });
      continue;
    }
    if (id === undefined) skipped.push({ node: name, reason: `providerID ${pid} is not a mockcloud ID` });
    else if (!knownServer(id)) skipped.push({ node: name, reason: `server ${id} does not exist`, unknownServer: true });
    else ids.add(id);
  }
  return { serverIDs: [...ids].sort(), skipped };
}

/**
 * The Service status of a load balancer: its public IP once it has one (`{}` before), with `ipMode: Proxy`
 * when a listener sends PROXY protocol (the client address is not preserved otherwise, so kube-proxy must
 * not short-circuit traffic to the IP).
 */
export function loadBalancerStatus(lb: CloudLoadBalancer): V1LoadBalancerStatus {
  if (!lb.publicIP) return {};
  const proxy = lb.listeners.some((l) => l.proxyProtocol);
  return { ingress: [proxy ? { ip: lb.publicIP, ipMode: 'Proxy' } : { ip: lb.publicIP }] };
}

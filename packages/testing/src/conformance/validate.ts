/**
 * Shape rules for what providers return: provider names, providerIDs, node addresses and load-balancer
 * ingress. Each returns a list of problems (empty when valid), so a check can report them all.
 */
import { parseIP } from '@ccm-kit/cloud-provider';
import type { V1LoadBalancerIngress, V1LoadBalancerStatus, V1NodeAddress } from '@kubernetes/client-node';

/** The node address types Kubernetes defines. */
export const NODE_ADDRESS_TYPES: ReadonlySet<string> = new Set([
  'Hostname',
  'InternalIP',
  'ExternalIP',
  'InternalDNS',
  'ExternalDNS',
]);

const IP_TYPES: ReadonlySet<string> = new Set(['InternalIP', 'ExternalIP']);

/** RFC 3986 URI scheme: a letter, then letters, digits, `+`, `-` or `.`. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;

/** True when `name` can prefix a providerID (`<name>://<id>`). */
export function isValidScheme(name: string): boolean {
  return SCHEME.test(name);
}

/** Problems of a providerID for provider `providerName` (`<providerName>://<non-empty id>`). */
export function providerIDProblems(providerID: unknown, providerName: string): string[] {
  if (typeof providerID !== 'string' || providerID === '') return ['providerID is empty'];
  const prefix = `${providerName}://`;
  if (!providerID.startsWith(prefix)) {
    return [`providerID ${JSON.stringify(providerID)} does not start with ${JSON.stringify(prefix)}`];
  }
  if (providerID.length === prefix.length) return [`providerID ${JSON.stringify(providerID)} has no ID after ://`];
  return [];
}

/** Problems of a node address list: must be non-empty; every type known; IP types hold parsable IPs. */
export function addressProblems(addresses: readonly V1NodeAddress[] | undefined): string[] {
  if (!Array.isArray(addresses) || addresses.length === 0) return ['no node addresses'];
  const problems: string[] = [];
  addresses.forEach((a, i) => {
    if (!NODE_ADDRESS_TYPES.has(a?.type)) {
      problems.push(
        `address[${i}] has type ${JSON.stringify(a?.type)}, not one of ${[...NODE_ADDRESS_TYPES].join(', ')}`,
      );
    } else if (typeof a.address !== 'string' || a.address === '') {
      problems.push(`address[${i}] (${a.type}) is empty`);
    } else if (IP_TYPES.has(a.type) && parseIP(a.address) === undefined) {
      problems.push(`address[${i}] (${a.type}) ${JSON.stringify(a.address)} is not an IP address`);
    }
  });
  return problems;
}

function ingressProblems(ingress: V1LoadBalancerIngress, i: number): string[] {
  const problems: string[] = [];
  const { ip, hostname, ipMode } = ingress ?? {};
  if (!ip && !hostname) problems.push(`ingress[${i}] has neither ip nor hostname`);
  if (ip && parseIP(ip) === undefined) problems.push(`ingress[${i}].ip ${JSON.stringify(ip)} is not an IP address`);
  if (ipMode !== undefined && ipMode !== 'VIP' && ipMode !== 'Proxy') {
    problems.push(`ingress[${i}].ipMode ${JSON.stringify(ipMode)} is neither VIP nor Proxy`);
  }
  return problems;
}

/** Problems of an `ensureLoadBalancer` status: an object with at least one valid ingress entry. */
export function statusProblems(status: V1LoadBalancerStatus | undefined): string[] {
  if (status === undefined || status === null || typeof status !== 'object') {
    return ['the status is missing (the service controller treats a missing status as an error)'];
  }
  if (!Array.isArray(status.ingress) || status.ingress.length === 0) {
    return ['the status has no ingress (throw RetryError while the address is not known yet)'];
  }
  return status.ingress.flatMap(ingressProblems);
}

/** The ingress endpoints of a status as sorted `ip`/`hostname` strings (for comparing two statuses). */
export function ingressKey(status: V1LoadBalancerStatus | undefined): string {
  const entries = (status?.ingress ?? []).map((e) => e.ip || e.hostname || '');
  return [...entries].sort().join(',');
}

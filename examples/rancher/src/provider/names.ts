/**
 * The names and strings the original provider derives (rancher/rancher.go `formatLBName`,
 * `buildExternalServiceName`, the `<port>:<port>/tcp` launch ports, `portsChanged`, `isValidToActivate`).
 */
import { defaultLoadBalancerName } from '@ccm-kit/cloud-provider';
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';

/** The stack that holds every balancer and external service this provider makes. */
export const STACK_NAME = 'kubernetes-loadbalancers';
/** The stack's `externalId`, which marks it as this provider's. */
export const STACK_EXTERNAL_ID = 'kubernetes-loadbalancers://';

/** The balancer service's name: `lb-` and the default load-balancer name (`a` + the Service UID without dashes). */
export function balancerName(service: V1Service): string {
  return `lb-${defaultLoadBalancerName(service)}`;
}

/**
 * The external service standing for one Node: the Node's name with every character other than a letter, a digit
 * or `-` turned into `-`, `-` trimmed from both ends, runs of `-` made one, at most 63 characters.
 */
export function externalServiceName(nodeName: string): string {
  return nodeName
    .replace(/[^a-zA-Z0-9-]/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/-+/g, '-')
    .slice(0, 63);
}

/** The Service ports a balancer serves: TCP (or unset) ports with a node port; the others are listed in `skipped`. */
export function servedPorts(service: V1Service): { served: V1ServicePort[]; skipped: V1ServicePort[] } {
  const served: V1ServicePort[] = [];
  const skipped: V1ServicePort[] = [];
  for (const p of service.spec?.ports ?? []) {
    ((p.protocol ?? 'TCP') === 'TCP' && p.nodePort ? served : skipped).push(p);
  }
  return { served, skipped };
}

/** The balancer's launch ports: `<port>:<port>/tcp` for each served port. */
export function launchPorts(ports: readonly V1ServicePort[]): string[] {
  return ports.map((p) => `${p.port}:${p.port}/tcp`);
}

/** True when two launch-port lists differ as sets of strings (order does not count). */
export function portsChanged(wanted: readonly string[], existing: readonly string[] | undefined): boolean {
  const a = [...wanted].sort();
  const b = [...(existing ?? [])].sort();
  return a.length !== b.length || a.some((p, i) => p !== b[i]);
}

/** True when a service in this state still has to be activated (not `active`, `activating` or `updating-active`). */
export function needsActivation(state: string | undefined): boolean {
  return !['active', 'activating', 'updating-active'].includes((state ?? '').toLowerCase());
}

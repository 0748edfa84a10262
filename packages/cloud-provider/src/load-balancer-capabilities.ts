/**
 * The optional capability declaration of a LoadBalancer facet: which Service fields the provider's load
 * balancers honour (no upstream counterpart; upstream providers ignore what they do not support, silently).
 *
 * Each member is optional, and a member left out is not checked: the service controller then behaves for that
 * field exactly as upstream (the Service goes to the provider as it is). A facet with no declaration at all is
 * upstream behaviour for every field. The fields, how each is checked and what the controller does when one is
 * unsupported are listed in docs/service-capabilities.md.
 */

/** A `spec.ports[].protocol` value (core/v1 `Protocol`). */
export type ServicePortProtocol = 'TCP' | 'UDP' | 'SCTP';
/** A `spec.ipFamilies[]` value (core/v1 `IPFamily`). */
export type ServiceIPFamily = 'IPv4' | 'IPv6';
/** A `status.loadBalancer.ingress[].ipMode` value (core/v1 `LoadBalancerIPMode`, KEP-1860). */
export type LoadBalancerIPMode = 'VIP' | 'Proxy';

/** What a provider's load balancers support, field by field of the Service API. */
export interface LoadBalancerCapabilities {
  /** The `spec.ports[].protocol` values a load balancer can serve (an unset protocol is `TCP`). */
  readonly protocols?: readonly ServicePortProtocol[];
  /** One load balancer serves ports of different protocols (for example TCP and UDP on port 53). */
  readonly mixedProtocols?: boolean;
  /**
   * `spec.loadBalancerSourceRanges`, and the annotation `service.beta.kubernetes.io/load-balancer-source-ranges`
   * used when the field is empty, are enforced: clients outside the ranges cannot connect.
   */
  readonly loadBalancerSourceRanges?: boolean;
  /**
   * `spec.externalTrafficPolicy: Local`: the load balancer checks each node's `spec.healthCheckNodePort` and
   * sends traffic only to nodes with a ready endpoint.
   */
  readonly externalTrafficPolicyLocal?: boolean;
  /** The IP families (`spec.ipFamilies`) a load balancer can have an address of. */
  readonly ipFamilies?: readonly ServiceIPFamily[];
  /** One load balancer has an address of each family when `spec.ipFamilies` lists both. */
  readonly dualStack?: boolean;
  /** `spec.loadBalancerIP` (deprecated upstream, still used) picks the load balancer's address. */
  readonly loadBalancerIP?: boolean;
  /**
   * `spec.allocateLoadBalancerNodePorts: false`: the load balancer reaches the Pods without node ports, so a
   * port without `nodePort` is served.
   */
  readonly allocateLoadBalancerNodePortsFalse?: boolean;
  /** `spec.sessionAffinity: ClientIP`: the load balancer sends one client to one backend. */
  readonly sessionAffinityClientIP?: boolean;
  /**
   * The `ipMode` values the provider reports in `status.loadBalancer.ingress` (an unset `ipMode` counts as `VIP`).
   * Not a Service field: the conformance suite checks the statuses against it; the controller does not.
   */
  readonly ipModes?: readonly LoadBalancerIPMode[];
}

const BOOLEAN_MEMBERS = [
  'mixedProtocols',
  'loadBalancerSourceRanges',
  'externalTrafficPolicyLocal',
  'dualStack',
  'loadBalancerIP',
  'allocateLoadBalancerNodePortsFalse',
  'sessionAffinityClientIP',
] as const;

const LIST_MEMBERS = {
  protocols: ['TCP', 'UDP', 'SCTP'],
  ipFamilies: ['IPv4', 'IPv6'],
  ipModes: ['VIP', 'Proxy'],
} as const;

const KNOWN_MEMBERS: ReadonlySet<string> = new Set([...BOOLEAN_MEMBERS, ...Object.keys(LIST_MEMBERS)]);

/**
 * Checks a declaration's shape, so that a typo fails at start-up instead of leaving a field unchecked.
 * @param provider - the provider name, for the message.
 * @throws TypeError `load balancer capabilities of provider "<name>": <member> …` naming the first bad member:
 *   an unknown member, a non-boolean flag, a list that is not an array of the allowed values.
 */
export function validateLoadBalancerCapabilities(value: unknown, provider: string): void {
  const where = `load balancer capabilities of provider ${JSON.stringify(provider)}`;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`${where} must be an object, got ${JSON.stringify(value)}`);
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KNOWN_MEMBERS.has(key)) {
      throw new TypeError(`${where}: unknown member ${JSON.stringify(key)}; known: ${[...KNOWN_MEMBERS].join(', ')}`);
    }
  }
  for (const key of BOOLEAN_MEMBERS) {
    const v = record[key];
    if (v !== undefined && typeof v !== 'boolean') {
      throw new TypeError(`${where}: ${key} must be true or false, got ${JSON.stringify(v)}`);
    }
  }
  for (const [key, allowed] of Object.entries(LIST_MEMBERS)) {
    const v = record[key];
    if (v === undefined) continue;
    const ok = Array.isArray(v) && v.every((x) => (allowed as readonly unknown[]).includes(x));
    if (!ok) {
      throw new TypeError(`${where}: ${key} must be a list of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
    }
  }
}

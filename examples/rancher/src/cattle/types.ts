/**
 * The Cattle API resources this provider reads and writes (Rancher 1.x, API version `v2-beta`), with only the
 * fields it uses. Every resource carries `links` (named URLs of related collections, such as a host's
 * `ipAddresses`) and `actions` (named URLs of the actions its current state allows, such as `activate`).
 */

/** Fields common to every Cattle resource. */
export interface CattleResource {
  id: string;
  type: string;
  name?: string;
  /** The lifecycle state: `registering`, `inactive`, `activating`, `active`, `removed`, … */
  state?: string;
  /** When the resource was removed (ISO time), or null/absent while it exists. */
  removed?: string | null;
  links?: Record<string, string>;
  actions?: Record<string, string>;
}

/** A machine registered with Rancher. */
export interface Host extends CattleResource {
  hostname: string;
  uuid: string;
}

/** One address of a host (the host's `ipAddresses` link). */
export interface IpAddress extends CattleResource {
  address: string;
}

/** A stack: the group the provider keeps its balancers and external services in. */
export interface Stack extends CattleResource {
  externalId?: string;
}

/** A balancer rule: traffic on `sourcePort` goes to `targetPort` of service `serviceId`. */
export interface PortRule {
  sourcePort: number;
  targetPort: number;
  serviceId: string;
  protocol: 'tcp';
}

/** Where a running balancer listens. */
export interface PublicEndpoint {
  ipAddress: string;
  port: number;
}

/** A Rancher load balancer (an haproxy service). */
export interface LoadBalancerService extends CattleResource {
  stackId: string;
  /** `ports` are `<source>:<target>/tcp` strings; they cannot change once created. */
  launchConfig: { ports: string[]; imageUuid: string };
  lbConfig?: { portRules?: PortRule[] };
  publicEndpoints?: PublicEndpoint[];
}

/** A service pointing outside Rancher's containers: here, at one host's address. */
export interface ExternalService extends CattleResource {
  stackId: string;
  externalIpAddresses: string[];
}

/** A named setting of the Rancher server (for example `lb.instance.image`). */
export interface Setting extends CattleResource {
  value: string;
}

/** The collections this provider uses, by their URL name. */
export type CollectionName =
  'hosts' | 'ipaddresses' | 'stacks' | 'loadbalancerservices' | 'externalservices' | 'services' | 'settings';

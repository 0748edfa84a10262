/**
 * The client's view of mockcloud resources (camelCase), and the mapping from the wire format.
 */
import type { WireLoadBalancer, WireLoadBalancerUpdate, WireRoute, WireRouteCreate, WireServer } from '../wire.js';

/** A cloud server. */
export interface Server {
  id: string;
  name: string;
  labels: Record<string, string>;
  /** `off` servers still exist (their Nodes get the shutdown taint, not deleted). */
  status: 'running' | 'off';
  privateIP: string;
  /** Absent when the server has no public address. */
  publicIP?: string;
  zone: string;
  region: string;
  type: string;
}

/** A load-balancer frontend port. */
export interface Listener {
  protocol: 'tcp' | 'udp';
  port: number;
  /** The port on each target server (the Service's nodePort). */
  targetPort: number;
  proxyProtocol: boolean;
}

/** A load-balancer health check. */
export interface HealthCheck {
  protocol: 'tcp' | 'http';
  port: number;
  path?: string;
  intervalSeconds: number;
}

/** A cloud load balancer. */
export interface CloudLoadBalancer {
  id: string;
  name: string;
  labels: Record<string, string>;
  status: 'provisioning' | 'active';
  /** Set once active. */
  publicIP?: string;
  listeners: Listener[];
  /** IDs of the target servers. */
  targetServerIDs: string[];
  healthCheck?: HealthCheck;
}

/** A route of the VPC route table. */
export interface CloudRoute {
  id: string;
  name: string;
  labels: Record<string, string>;
  /** Canonical network form, for example `10.244.1.0/24`. */
  destinationCIDR: string;
  /** The next hop; may name a server deleted since. */
  targetServerID: string;
}

/** What to create: a route to `destinationCIDR` through the server `targetServerID`. */
export type CloudRouteSpec = Omit<CloudRoute, 'id'>;

/** What to create or change on a load balancer; absent fields are left alone on update. */
export interface LoadBalancerSpec {
  name?: string;
  labels?: Record<string, string>;
  listeners?: Listener[];
  targetServerIDs?: string[];
  /** `null` removes the health check. */
  healthCheck?: HealthCheck | null;
}

/** Wire → {@link Server}. */
export function fromWireServer(s: WireServer): Server {
  const out: Server = {
    id: s.id,
    name: s.name,
    labels: { ...s.labels },
    status: s.status,
    privateIP: s.private_ip,
    zone: s.zone,
    region: s.region,
    type: s.type,
  };
  if (s.public_ip) out.publicIP = s.public_ip;
  return out;
}

/** Wire → {@link CloudLoadBalancer}. */
export function fromWireLoadBalancer(lb: WireLoadBalancer): CloudLoadBalancer {
  const out: CloudLoadBalancer = {
    id: lb.id,
    name: lb.name,
    labels: { ...lb.labels },
    status: lb.status,
    listeners: lb.listeners.map((l) => ({
      protocol: l.protocol,
      port: l.port,
      targetPort: l.target_port,
      proxyProtocol: l.proxy_protocol,
    })),
    targetServerIDs: lb.targets.map((t) => t.server_id),
  };
  if (lb.public_ip) out.publicIP = lb.public_ip;
  if (lb.health_check) {
    const hc = lb.health_check;
    out.healthCheck = { protocol: hc.protocol, port: hc.port, intervalSeconds: hc.interval_seconds };
    if (hc.path !== undefined) out.healthCheck.path = hc.path;
  }
  return out;
}

/** {@link LoadBalancerSpec} → wire body. */
export function toWireLoadBalancer(spec: LoadBalancerSpec): WireLoadBalancerUpdate {
  const out: WireLoadBalancerUpdate = {};
  if (spec.name !== undefined) out.name = spec.name;
  if (spec.labels !== undefined) out.labels = { ...spec.labels };
  if (spec.listeners !== undefined) {
    out.listeners = spec.listeners.map((l) => ({
      protocol: l.protocol,
      port: l.port,
      target_port: l.targetPort,
      proxy_protocol: l.proxyProtocol,
    }));
  }
  if (spec.targetServerIDs !== undefined) out.targets = spec.targetServerIDs.map((server_id) => ({ server_id }));
  if (spec.healthCheck === null) out.health_check = null;
  else if (spec.healthCheck !== undefined) {
    const hc = spec.healthCheck;
    out.health_check = { protocol: hc.protocol, port: hc.port, interval_seconds: hc.intervalSeconds };
    if (hc.path !== undefined) out.health_check.path = hc.path;
  }
  return out;
}

/** Wire → {@link CloudRoute}. */
export function fromWireRoute(r: WireRoute): CloudRoute {
  return {
    id: r.id,
    name: r.name,
    labels: { ...r.labels },
    destinationCIDR: r.destination_cidr,
    targetServerID: r.target_server_id,
  };
}

/** {@link CloudRouteSpec} → wire body. */
export function toWireRoute(spec: CloudRouteSpec): WireRouteCreate {
  return {
    name: spec.name,
    labels: { ...spec.labels },
    destination_cidr: spec.destinationCIDR,
    target_server_id: spec.targetServerID,
  };
}

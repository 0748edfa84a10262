/**
 * The mockcloud API's wire format: the JSON bodies of `/v1` as the API server sends and accepts them.
 * Field names are snake_case, as in most vendor REST APIs; the client maps them to camelCase types
 * (`client/types.ts`). A vendor replaces this file with its own API's shapes.
 */

/** `running` or `off` (a stopped server still exists: its Node must not be deleted). */
export type WireServerStatus = 'running' | 'off';

/** A server (virtual machine). */
export interface WireServer {
  /** Stable ID, for example `srv-000001`; the providerID is `mockcloud://<id>`. */
  id: string;
  name: string;
  labels: Record<string, string>;
  status: WireServerStatus;
  private_ip: string;
  /** `null` when the server has no public address. */
  public_ip: string | null;
  zone: string;
  region: string;
  /** The server type, for example `cx22`. */
  type: string;
  /** RFC 3339 creation time. */
  created: string;
}

/** `provisioning` until the load balancer is ready, then `active`. */
export type WireLoadBalancerStatus = 'provisioning' | 'active';

/** One frontend port and where it forwards to on the targets. */
export interface WireListener {
  protocol: 'tcp' | 'udp';
  /** The frontend port (1–65535). */
  port: number;
  /** The port on each target (a Service's nodePort). */
  target_port: number;
  /** Prepend a PROXY protocol header to forwarded TCP connections. */
  proxy_protocol: boolean;
}

/** How the load balancer checks its targets. */
export interface WireHealthCheck {
  protocol: 'tcp' | 'http';
  port: number;
  /** Path of an `http` check. */
  path?: string;
  interval_seconds: number;
}

/** A backend of a load balancer. */
export interface WireTarget {
  server_id: string;
}

/** A load balancer. */
export interface WireLoadBalancer {
  /** Stable ID, for example `lb-000001`. */
  id: string;
  /** Unique within the account. */
  name: string;
  labels: Record<string, string>;
  status: WireLoadBalancerStatus;
  /** Assigned when the load balancer becomes active; `null` while provisioning. */
  public_ip: string | null;
  listeners: WireListener[];
  targets: WireTarget[];
  health_check: WireHealthCheck | null;
  created: string;
}

/** Body of `POST /v1/load_balancers`. */
export interface WireLoadBalancerCreate {
  name: string;
  labels?: Record<string, string>;
  listeners?: WireListener[];
  targets?: WireTarget[];
  health_check?: WireHealthCheck | null;
}

/** Body of `PATCH /v1/load_balancers/<id>`: only the fields present are replaced. */
export type WireLoadBalancerUpdate = Partial<WireLoadBalancerCreate>;

/** Body of `PATCH /v1/servers/<id>`: `labels` replaces the whole label map. */
export interface WireServerUpdate {
  name?: string;
  labels?: Record<string, string>;
}

/** Pagination of list answers (`meta.pagination`). Pages count from 1. */
export interface WirePagination {
  page: number;
  per_page: number;
  previous_page: number | null;
  /** `null` on the last page. */
  next_page: number | null;
  last_page: number;
  total_entries: number;
}

/** `GET /v1/servers`. */
export interface WireServerList {
  servers: WireServer[];
  meta: { pagination: WirePagination };
}

/** `GET /v1/load_balancers`. */
export interface WireLoadBalancerList {
  load_balancers: WireLoadBalancer[];
  meta: { pagination: WirePagination };
}

/** A route of the VPC route table: packets for `destination_cidr` go to the server `target_server_id`. */
export interface WireRoute {
  id: string;
  name: string;
  labels: Record<string, string>;
  destination_cidr: string;
  /** The next hop; may name a server deleted since (the route is then a blackhole). */
  target_server_id: string;
  created: string;
}

/** `POST /v1/routes` body. */
export interface WireRouteCreate {
  name: string;
  labels?: Record<string, string>;
  destination_cidr: string;
  target_server_id: string;
}

/** `GET /v1/routes`. */
export interface WireRouteList {
  routes: WireRoute[];
  meta: { pagination: WirePagination };
}

/**
 * Every error answer. Codes: `unauthorized` (401), `forbidden` (403), `not_found` (404),
 * `invalid_input` (400), `uniqueness_error` (409), `rate_limit_exceeded` (429), `server_error` (5xx).
 */
export interface WireError {
  error: { code: string; message: string };
}

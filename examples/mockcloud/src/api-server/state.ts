/**
 * The mock cloud's in-memory state: servers, load balancers and a VPC route table, with ID and address allocation and
 * asynchronous provisioning. Pure data: no HTTP here, so tests can script it directly through
 * `MockCloudApiServer.state`.
 *
 * Provisioning is computed on read: a load balancer is `provisioning` until `provisioningDelayMs`
 * after its creation (or until {@link CloudState.activateLoadBalancer}), then `active` with its public IP.
 * No timers run, so a stopped server leaves nothing behind.
 */
import type {
  WireLoadBalancer,
  WireLoadBalancerCreate,
  WireLoadBalancerUpdate,
  WireRoute,
  WireRouteCreate,
  WireServer,
} from '../wire.js';
import { ApiProblem, notFound } from './problem.js';

/** What a test gives to {@link CloudState.addServer}; everything but `name` has a default. */
export type ServerSeed = Partial<WireServer> & { name: string };

interface LoadBalancerRecord {
  lb: Omit<WireLoadBalancer, 'status' | 'public_ip'>;
  /** Epoch ms when it becomes active; `Infinity` with provisioning paused. */
  readyAt: number;
  ip: string;
}

/** A serializable copy of the whole state (`GET /admin/state`). */
export interface CloudStateSnapshot {
  servers: WireServer[];
  load_balancers: WireLoadBalancer[];
  routes: WireRoute[];
}

/** Options of {@link CloudState}. */
export interface CloudStateOptions {
  /** How long a new load balancer stays `provisioning`, in ms. Default 0 (active on the first read). */
  provisioningDelayMs?: number;
  /** The clock, in epoch ms; default `Date.now`. */
  now?: () => number;
}

function pad(n: number): string {
  return String(n).padStart(6, '0');
}

function byId<T extends { id: string }>(a: T, b: T): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The servers and load balancers of one mock cloud account. */
export class CloudState {
  readonly #servers = new Map<string, WireServer>();
  readonly #lbs = new Map<string, LoadBalancerRecord>();
  readonly #routes = new Map<string, WireRoute>();
  #nextServer = 1;
  #nextRoute = 1;
  #nextLb = 1;
  #nextIp = 1;
  /** Current provisioning delay in ms (applies to load balancers created afterwards). */
  provisioningDelayMs: number;
  readonly now: () => number;

  constructor(options: CloudStateOptions = {}) {
    this.provisioningDelayMs = options.provisioningDelayMs ?? 0;
    this.now = options.now ?? Date.now;
  }

  #address(prefix: string): string {
    const n = this.#nextIp++;
    return `${prefix}.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
  }

  // ---- servers ---------------------------------------------------------------------------------

  /**
   * Adds a server. Defaults: ID `srv-<n>`, status `running`, private IP `10.0.x.y`, public IP
   * `198.51.x.y`, zone `zone-1`, region `region-1`, type `standard-2`, no labels.
   * @throws ApiProblem 409 when the ID is taken.
   */
  addServer(seed: ServerSeed): WireServer {
    const id = seed.id ?? `srv-${pad(this.#nextServer++)}`;
    if (this.#servers.has(id)) throw new ApiProblem(409, 'uniqueness_error', `server ${id} already exists`);
    const server: WireServer = {
      id,
      name: seed.name,
      labels: { ...(seed.labels ?? {}) },
      status: seed.status ?? 'running',
      private_ip: seed.private_ip ?? this.#address('10.0'),
      public_ip: seed.public_ip === undefined ? this.#address('198.51') : seed.public_ip,
      zone: seed.zone ?? 'zone-1',
      region: seed.region ?? 'region-1',
      type: seed.type ?? 'standard-2',
      created: seed.created ?? new Date(this.now()).toISOString(),
    };
    this.#servers.set(id, server);
    return structuredClone(server);
  }

  /** A copy of the server, or `undefined`. */
  getServer(id: string): WireServer | undefined {
    const s = this.#servers.get(id);
    return s && structuredClone(s);
  }

  /** Copies of all servers, sorted by ID. */
  listServers(): WireServer[] {
    return [...this.#servers.values()].sort(byId).map((s) => structuredClone(s));
  }

  /**
   * Changes any fields of a server but its ID (for example `status: 'off'`).
   * @throws ApiProblem 404 when it does not exist.
   */
  updateServer(id: string, patch: Partial<Omit<WireServer, 'id'>>): WireServer {
    const s = this.#servers.get(id);
    if (!s) throw notFound('server', id);
    const { id: _ignored, ...rest } = patch as Partial<WireServer>;
    Object.assign(s, structuredClone(rest));
    return structuredClone(s);
  }

  /** Deletes a server and removes it from every load balancer's targets; false when it did not exist. */
  removeServer(id: string): boolean {
    if (!this.#servers.delete(id)) return false;
    for (const rec of this.#lbs.values()) rec.lb.targets = rec.lb.targets.filter((t) => t.server_id !== id);
    return true;
  }

  // ---- load balancers --------------------------------------------------------------------------

  #view(rec: LoadBalancerRecord): WireLoadBalancer {
    const active = this.now() >= rec.readyAt;
    return {
      ...structuredClone(rec.lb),
      status: active ? 'active' : 'provisioning',
      public_ip: active ? rec.ip : null,
    };
  }

  /**
   * Creates a load balancer in `provisioning` state (body already validated).
   * @throws ApiProblem 409 `uniqueness_error` when the name is taken.
   */
  createLoadBalancer(body: WireLoadBalancerCreate): WireLoadBalancer {
    for (const rec of this.#lbs.values()) {
      if (rec.lb.name === body.name) {
        throw new ApiProblem(
          409,
          'uniqueness_error',
          `load balancer name ${body.name} is already used by ${rec.lb.id}`,
        );
      }
    }
    const id = `lb-${pad(this.#nextLb++)}`;
    const rec: LoadBalancerRecord = {
      lb: {
        id,
        name: body.name,
        labels: { ...(body.labels ?? {}) },
        listeners: structuredClone(body.listeners ?? []),
        targets: structuredClone(body.targets ?? []),
        health_check: structuredClone(body.health_check ?? null),
        created: new Date(this.now()).toISOString(),
      },
      readyAt: this.now() + this.provisioningDelayMs,
      ip: this.#address('203.0'),
    };
    this.#lbs.set(id, rec);
    return this.#view(rec);
  }

  /** The load balancer with its current status, or `undefined`. */
  getLoadBalancer(id: string): WireLoadBalancer | undefined {
    const rec = this.#lbs.get(id);
    return rec && this.#view(rec);
  }

  /** All load balancers, sorted by ID. */
  listLoadBalancers(): WireLoadBalancer[] {
    return [...this.#lbs.values()].map((r) => this.#view(r)).sort(byId);
  }

  /**
   * Replaces the fields present in `patch` (body already validated).
   * @throws ApiProblem 404 when it does not exist, 409 when the new name is taken.
   */
  updateLoadBalancer(id: string, patch: WireLoadBalancerUpdate): WireLoadBalancer {
    const rec = this.#lbs.get(id);
    if (!rec) throw notFound('load balancer', id);
    if (patch.name !== undefined && patch.name !== rec.lb.name) {
      for (const other of this.#lbs.values()) {
        if (other.lb.name === patch.name) {
          throw new ApiProblem(409, 'uniqueness_error', `load balancer name ${patch.name} is already used`);
        }
      }
      rec.lb.name = patch.name;
    }
    if (patch.labels !== undefined) rec.lb.labels = { ...patch.labels };
    if (patch.listeners !== undefined) rec.lb.listeners = structuredClone(patch.listeners);
    if (patch.targets !== undefined) rec.lb.targets = structuredClone(patch.targets);
    if (patch.health_check !== undefined) rec.lb.health_check = structuredClone(patch.health_check);
    return this.#view(rec);
  }

  /** Deletes a load balancer; false when it did not exist. */
  deleteLoadBalancer(id: string): boolean {
    return this.#lbs.delete(id);
  }

  /**
   * Ends provisioning of a load balancer now.
   * @throws ApiProblem 404 when it does not exist.
   */
  activateLoadBalancer(id: string): WireLoadBalancer {
    const rec = this.#lbs.get(id);
    if (!rec) throw notFound('load balancer', id);
    rec.readyAt = Math.min(rec.readyAt, this.now());
    return this.#view(rec);
  }

  /** Keeps a load balancer `provisioning` until {@link CloudState.activateLoadBalancer}. */
  holdLoadBalancer(id: string): void {
    const rec = this.#lbs.get(id);
    if (!rec) throw notFound('load balancer', id);
    rec.readyAt = Number.POSITIVE_INFINITY;
  }

  // ---- routes (the VPC route table) -----------------------------------------------------------

  /**
   * Adds a route (body already validated). Deleting its target server later leaves it in place.
   * @throws ApiProblem 409 `uniqueness_error` when the name is taken or the destination already has a route.
   */
  createRoute(body: WireRouteCreate): WireRoute {
    for (const r of this.#routes.values()) {
      if (r.name === body.name)
        throw new ApiProblem(409, 'uniqueness_error', `route name ${body.name} is already used by ${r.id}`);
      if (r.destination_cidr === body.destination_cidr) {
        throw new ApiProblem(
          409,
          'uniqueness_error',
          `destination ${body.destination_cidr} is already routed by ${r.id}`,
        );
      }
    }
    const route: WireRoute = {
      id: `rt-${pad(this.#nextRoute++)}`,
      name: body.name,
      labels: { ...(body.labels ?? {}) },
      destination_cidr: body.destination_cidr,
      target_server_id: body.target_server_id,
      created: new Date(this.now()).toISOString(),
    };
    this.#routes.set(route.id, route);
    return structuredClone(route);
  }

  /** A copy of the route, or `undefined`. */
  getRoute(id: string): WireRoute | undefined {
    const r = this.#routes.get(id);
    return r && structuredClone(r);
  }

  /** Copies of all routes, sorted by ID. */
  listRoutes(): WireRoute[] {
    return [...this.#routes.values()].sort(byId).map((r) => structuredClone(r));
  }

  /** Deletes a route; false when it did not exist. */
  deleteRoute(id: string): boolean {
    return this.#routes.delete(id);
  }

  // ---- whole state -----------------------------------------------------------------------------

  /** A copy of everything. */
  snapshot(): CloudStateSnapshot {
    return {
      servers: this.listServers(),
      load_balancers: this.listLoadBalancers(),
      routes: this.listRoutes(),
    };
  }

  /** Removes every server, load balancer and route (ID counters keep counting, so IDs are never reused). */
  clear(): void {
    this.#servers.clear();
    this.#lbs.clear();
    this.#routes.clear();
  }
}

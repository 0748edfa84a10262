/**
 * Tier-A in-process fake cloud "fakebench" for the side-by-side benchmark (bench/compare.ts): the
 * TypeScript twin of bench/upstream-ccm/fakebench.go, with the same semantics, counter names and
 * counters line, so both CCMs see the same cloud.
 *
 * - InstancesV2: every Node exists and runs, except by name: a Node whose name contains `-gone-` does not
 *   exist (`instanceExists` false) and one whose name contains `-shutdown-` is shut down
 *   (`instanceShutdown` true); `instanceMetadata` answers for every name (the benchmark's lifecycle
 *   workload only needs existence and shutdown). It returns providerID `fakebench://<node name>`, one
 *   InternalIP from an FNV-1a hash of the name (`10.<h>>16&255>.<h>>8&255>.<h&255>`), instance type
 *   `fb.standard-4`, zone `fakebench-<a|b|c>` (hash % 3) and region `fakebench-1`.
 * - LoadBalancer: keyed by the default LB name; `ensureLoadBalancer` keeps an existing balancer's IP or
 *   takes the next from a counter (`198.18.<n>>8&255>.<n&255>`); of the hosts only their number and an
 *   FNV-1a hash of the sorted names joined by `,` are kept (so 1,000 balancers × 5,000 Nodes do not
 *   weigh on the CCM's memory); `updateLoadBalancer` replaces them; `ensureLoadBalancerDeleted` forgets
 *   the balancer.
 * - Routes: a map keyed by destination CIDR.
 *
 * Memory is bounded by the live objects (at most {@link MAX_OBJECTS} balancers and routes; more is an
 * error). Env (all optional, read by {@link FakeBench.fromEnv}):
 * - `FAKEBENCH_LATENCY_MS`: a fixed delay (milliseconds, abortable) of every cloud call;
 * - `FAKEBENCH_STALE_ROUTES`: start with this many routes no Node owns (`10.<120+i>>8>.<i&255>.0/24`
 *   → `bench-stale-<i>`, at most {@link MAX_STALE_ROUTES}), for a route controller to delete;
 * - `FAKEBENCH_STATE_FILE`: the cloud's state (balancers, routes, IP counter) is loaded from this JSON
 *   file at start when it exists and saved to it at exit, so a restarted CCM finds the cloud as it was;
 * - `FAKEBENCH_RPS`: the cloud's API quota, calls a second (token bucket, burst = rps, bench/fakebench-quota.ts);
 *   a call beyond it is counted and answered with {@link CloudThrottledError} (429, `Retry-After: 1`), the
 *   way an HTTP client surfaces a 429, and counted in `throttled`. `FAKEBENCH_RPS_FROM=signal` holds the
 *   quota off until {@link FakeBench.startQuota} (bench/ts-ccm.ts calls it on SIGUSR2); default `start`;
 * - `FAKEBENCH_BATCH_PAGE_SIZE` (TypeScript side only, the `b` config suffix of bench/compare): offer the
 *   optional batch read `InstancesV2.listInstanceStates` over the instances `bench-node-00000` …
 *   (`FAKEBENCH_INSTANCES` of them, the benchmark's Node names), this many per page, each page one counted
 *   `ListInstanceStates` call. The Go side has no such method and ignores both variables.
 * - `FAKEBENCH_GROUPS=1` (TypeScript side only, W10): offer the optional `LoadBalancer.loadBalancerGroup`, the
 *   Service's `bench.ccm-kit.dev/lb-group` label. Whatever the variable, on both sides a load-balancer call on a
 *   group another call is changing is refused with a 409 and counted in `conflicts` (bench/fakebench-groups.ts).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CloudProvider,
  defaultLoadBalancerName,
  type InstanceMetadata,
  type InstanceStatePage,
  type InstancesV2,
  type LoadBalancer,
  type Route,
  type Routes,
} from '@ccm-kit/cloud-provider';
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';
import { CloudConflictError, GroupLocks, groupOf } from './fakebench-groups.ts';
import { CloudThrottledError, parseRps, TokenBucket } from './fakebench-quota.ts';

/** The provider name registered by bench/ts-ccm.ts and given as `--cloud-provider`. */
export const PROVIDER_NAME = 'fakebench';
/** Upper bound of the balancer table and of the route table, each. */
export const MAX_OBJECTS = 100_000;
/** Upper bound of `FAKEBENCH_STALE_ROUTES` (the stale routes must stay inside 10.120.0.0/13). */
export const MAX_STALE_ROUTES = 2048;

/** Method names as printed in the counters line (identical to the Go side, which never calls `ListInstanceStates`). */
export const METHOD_NAMES = [
  'InstanceExists',
  'InstanceShutdown',
  'InstanceMetadata',
  'ListInstanceStates',
  'GetLoadBalancer',
  'GetLoadBalancerName',
  'EnsureLoadBalancer',
  'UpdateLoadBalancer',
  'EnsureLoadBalancerDeleted',
  'ListRoutes',
  'CreateRoute',
  'DeleteRoute',
] as const;
export type MethodName = (typeof METHOD_NAMES)[number];

/** The JSON line written to `FAKEBENCH_COUNTERS_FILE` (same fields as the Go side). */
export interface CounterLine {
  impl: 'ts' | 'go';
  pid: number;
  /** Unix time of the line, in ms. */
  timeMs: number;
  /** Unix time of the first counted cloud call (other than GetLoadBalancerName), in ms; 0 before it. */
  firstCallMs: number;
  calls: Record<MethodName, number>;
  loadBalancers: number;
  /** Sum of the host counts of all balancers. */
  lbHostsTotal: number;
  /**
   * Sum (mod 2^32) over the balancers of FNV-1a(decimal host hash): equal when the balancers hold the
   * same host sets (balancer names come from Service UIDs, which differ run to run, so they are left out).
   */
  lbHostsHash: number;
  routes: number;
  /** Sum (mod 2^32) over the routes of FNV-1a(`<destination CIDR>><target node>`). */
  routesHash: number;
  /** Calls answered with 429 because the quota (`FAKEBENCH_RPS`) was spent; they are in `calls` too. */
  throttled: number;
  /** Load-balancer calls refused because another call on the same group was in flight (bench/fakebench-groups.ts). */
  conflicts: number;
  /** TypeScript side only: instances answered by `ListInstanceStates` pages, in all (absent on the Go side). */
  instancesListed?: number;
}

/** What `FAKEBENCH_STATE_FILE` holds (same shape on the Go side). */
export interface CloudState {
  nextIP: number;
  balancers: Record<string, { ip: string; hosts: number; hostsHash: number }>;
  routes: { name: string; targetNode: string; destinationCIDR: string; blackhole: boolean }[];
}

/**
 * FNV-1a, 32 bits, over the UTF-8 bytes of `s` (Go's hash/fnv New32a). An indexed loop over one copy of the
 * bytes, as Go's: a `for…of` over the Buffer allocated an iterator result per byte (about 100 MB in a W2 of
 * 1,000 Nodes and 200 Services, whose host hash covers 17 KB of names per EnsureLoadBalancer).
 */
export function fnv32a(s: string): number {
  const bytes = Buffer.from(s, 'utf8');
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** The InternalIP fakebench reports for a Node name. */
export function fakebenchNodeIP(name: string): string {
  const h = fnv32a(name);
  return `10.${(h >>> 16) & 255}.${(h >>> 8) & 255}.${h & 255}`;
}

/** The zone fakebench reports for a Node name. */
export function fakebenchZone(name: string): string {
  return `fakebench-${'abc'[fnv32a(name) % 3]}`;
}

interface Balancer {
  ip: string;
  /** Number of hosts. */
  hosts: number;
  /** FNV-1a of the sorted host names joined by `,`. */
  hostsHash: number;
}

function statusOf(ip: string): V1LoadBalancerStatus {
  return { ingress: [{ ip }] };
}

/** The host count and hash of a balancer's Nodes. */
function hostsOf(nodes: readonly V1Node[]): Pick<Balancer, 'hosts' | 'hostsHash'> {
  const names = nodes.map((n) => n.metadata?.name ?? '').sort();
  return { hosts: names.length, hostsHash: fnv32a(names.join(',')) };
}

/**
 * The name of benchmark Node `i` (bench/compare/objects.ts); `kind` `gone` or `shutdown` gives a Node whose
 * instance fakebench reports as deleted or shut down.
 */
export function nodeName(i: number, kind: 'ok' | 'gone' | 'shutdown' = 'ok'): string {
  return `bench-node-${kind === 'ok' ? '' : `${kind}-`}${String(i).padStart(5, '0')}`;
}

/** Upper bound of `FAKEBENCH_INSTANCES`. */
export const MAX_INSTANCES = 1_000_000;

/** The batch read's settings: instances `nodeName(0)` … `nodeName(instances - 1)`, `pageSize` per page. */
export interface BatchRead {
  pageSize: number;
  instances: number;
}

/** The metadata fakebench answers for a Node name. */
function metadataOf(name: string): InstanceMetadata {
  return {
    providerID: `${PROVIDER_NAME}://${name}`,
    instanceType: 'fb.standard-4',
    nodeAddresses: [{ type: 'InternalIP', address: fakebenchNodeIP(name) }],
    zone: fakebenchZone(name),
    region: 'fakebench-1',
  };
}

/** Whether fakebench treats the Node's instance as deleted / shut down (by name, see the module doc). */
export const isGone = (name: string): boolean => name.includes('-gone-');
export const isShutdown = (name: string): boolean => name.includes('-shutdown-');

/** The `FAKEBENCH_STALE_ROUTES` route number `i`. */
export function staleRoute(i: number): Route {
  return {
    name: `bench-stale-${i}`,
    targetNode: `bench-stale-${i}`,
    destinationCIDR: `10.${120 + (i >> 8)}.${i & 255}.0/24`,
    blackhole: false,
  };
}

/** The fake cloud; one instance per process. */
export class FakeBench implements CloudProvider, InstancesV2, LoadBalancer, Routes {
  readonly latencyMs: number;
  readonly #calls = new Map<MethodName, number>(METHOD_NAMES.map((m) => [m, 0]));
  #firstCallMs = 0;
  #nextIP = 0;
  readonly #balancers = new Map<string, Balancer>();
  readonly #routes = new Map<string, Route>();
  /** Calls a second of the quota, or undefined for none. */
  readonly #rps: number | undefined;
  #quota: TokenBucket | undefined;
  #throttled = 0;
  readonly batch: BatchRead | undefined;
  #instancesListed = 0;
  readonly #groups = new GroupLocks();

  /**
   * @param latencyMs fixed delay of every cloud call, milliseconds
   * @param staleRoutes routes no Node owns to start with (see {@link staleRoute})
   * @param quota `rps`: the API quota in calls a second (undefined: none); `fromStart` false holds it off until
   *   {@link FakeBench.startQuota}
   * @param batch offer `listInstanceStates` (see the module doc); `undefined`: not offered, as on the Go side
   * @param groups offer `loadBalancerGroup` (the Service's group label); false: not offered, as on the Go side
   * @throws Error when `latencyMs` is negative or not a number, `staleRoutes` is not an integer in
   *   0..{@link MAX_STALE_ROUTES}, or `batch` has a page size below 1 or an instance count outside 0..{@link MAX_INSTANCES}.
   */
  constructor(
    latencyMs = 0,
    staleRoutes = 0,
    quota: { rps?: number; fromStart?: boolean } = {},
    batch?: BatchRead,
    groups = false,
  ) {
    if (!Number.isFinite(latencyMs) || latencyMs < 0) {
      throw new Error(`FAKEBENCH_LATENCY_MS must be a non-negative number of milliseconds, got ${latencyMs}`);
    }
    if (!Number.isInteger(staleRoutes) || staleRoutes < 0 || staleRoutes > MAX_STALE_ROUTES) {
      throw new Error(`FAKEBENCH_STALE_ROUTES must be an integer from 0 to ${MAX_STALE_ROUTES}, got ${staleRoutes}`);
    }
    if (batch && (!Number.isInteger(batch.pageSize) || batch.pageSize < 1)) {
      throw new Error(`FAKEBENCH_BATCH_PAGE_SIZE must be a positive integer, got ${batch.pageSize}`);
    }
    if (batch && (!Number.isInteger(batch.instances) || batch.instances < 0 || batch.instances > MAX_INSTANCES)) {
      throw new Error(`FAKEBENCH_INSTANCES must be an integer from 0 to ${MAX_INSTANCES}, got ${batch.instances}`);
    }
    this.latencyMs = latencyMs;
    this.batch = batch;
    this.listInstanceStates = batch ? (pageToken, signal) => this.#listPage(batch, pageToken, signal) : undefined;
    this.loadBalancerGroup = groups ? (_clusterName, service) => groupOf(service) : undefined;
    this.#rps = quota.rps;
    if (quota.fromStart !== false) this.startQuota();
    for (let i = 0; i < staleRoutes; i++) {
      const r = staleRoute(i);
      this.#routes.set(r.destinationCIDR, r);
    }
  }

  /**
   * Reads `FAKEBENCH_LATENCY_MS` (ms, default 0), `FAKEBENCH_STALE_ROUTES` (default 0), `FAKEBENCH_RPS` and
   * `FAKEBENCH_RPS_FROM` (`start` or `signal`), `FAKEBENCH_BATCH_PAGE_SIZE` with `FAKEBENCH_INSTANCES` (default: no
   * batch read), `FAKEBENCH_GROUPS` (`1`: offer `loadBalancerGroup`; default none), and loads `FAKEBENCH_STATE_FILE` when it exists (its routes
   * replace the stale ones).
   * @throws Error on a malformed variable or state file.
   */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): FakeBench {
    const n = (v: string | undefined) => (v === undefined || v === '' ? 0 : Number(v));
    const from = env.FAKEBENCH_RPS_FROM || 'start';
    if (from !== 'start' && from !== 'signal') {
      throw new Error(`FAKEBENCH_RPS_FROM must be start or signal, got ${JSON.stringify(from)}`);
    }
    const quota = { rps: parseRps(env.FAKEBENCH_RPS), fromStart: from === 'start' };
    const batch = env.FAKEBENCH_BATCH_PAGE_SIZE
      ? { pageSize: Number(env.FAKEBENCH_BATCH_PAGE_SIZE), instances: n(env.FAKEBENCH_INSTANCES) }
      : undefined;
    const groups = env.FAKEBENCH_GROUPS || '0';
    if (groups !== '0' && groups !== '1') {
      throw new Error(`FAKEBENCH_GROUPS must be 0 or 1, got ${JSON.stringify(groups)}`);
    }
    const fake = new FakeBench(
      n(env.FAKEBENCH_LATENCY_MS),
      n(env.FAKEBENCH_STALE_ROUTES),
      quota,
      batch,
      groups === '1',
    );
    const stateFile = env.FAKEBENCH_STATE_FILE;
    if (stateFile && existsSync(stateFile)) fake.loadState(JSON.parse(readFileSync(stateFile, 'utf8')) as CloudState);
    return fake;
  }

  /** Replaces the balancers, routes and IP counter with `state`. */
  loadState(state: CloudState): void {
    this.#nextIP = state.nextIP;
    this.#balancers.clear();
    for (const [name, b] of Object.entries(state.balancers)) this.#balancers.set(name, { ...b });
    this.#routes.clear();
    for (const r of state.routes) this.#routes.set(r.destinationCIDR, { ...r });
  }

  /** Writes the balancers, routes and IP counter to `path` (temporary file, then rename). */
  saveState(path: string): void {
    const state: CloudState = {
      nextIP: this.#nextIP,
      balancers: Object.fromEntries(this.#balancers),
      routes: [...this.#routes.values()].map((r) => ({
        name: r.name ?? '',
        targetNode: r.targetNode,
        destinationCIDR: r.destinationCIDR,
        blackhole: r.blackhole ?? false,
      })),
    };
    writeFileSync(`${path}.tmp`, JSON.stringify(state));
    renameSync(`${path}.tmp`, path);
  }

  /** Starts the quota (a full bucket) when one is configured and not yet running. */
  startQuota(nowMs = Date.now()): void {
    if (this.#rps !== undefined && this.#quota === undefined)
      this.#quota = new TokenBucket(this.#rps, this.#rps, nowMs);
  }

  /**
   * Counts a call, waits the latency and, beyond the quota, refuses it.
   * @throws CloudThrottledError when the quota's bucket is empty.
   */
  async #call(method: MethodName, signal?: AbortSignal): Promise<void> {
    this.#calls.set(method, this.#calls.get(method)! + 1);
    const now = Date.now();
    if (this.#firstCallMs === 0) this.#firstCallMs = now;
    const allowed = this.#quota?.take(now) ?? true;
    if (!allowed) this.#throttled++;
    if (this.latencyMs > 0) await sleep(this.latencyMs, undefined, { signal });
    if (!allowed) throw new CloudThrottledError(method);
  }

  /**
   * A load-balancer call: on a Service in a group, refused with {@link CloudConflictError} (after the latency, as
   * a round trip) while another call on the group is in flight, else the group is held for the whole call.
   */
  async #lbCall<T>(method: MethodName, service: V1Service, signal: AbortSignal | undefined, body: () => T): Promise<T> {
    const group = groupOf(service);
    if (group === undefined) {
      await this.#call(method, signal);
      return body();
    }
    if (!this.#groups.take(group)) {
      await this.#call(method, signal);
      throw new CloudConflictError(method, group);
    }
    try {
      await this.#call(method, signal);
      return body();
    } finally {
      this.#groups.release(group);
    }
  }

  snapshot(): CounterLine {
    return {
      impl: 'ts',
      pid: process.pid,
      timeMs: Date.now(),
      firstCallMs: this.#firstCallMs,
      calls: Object.fromEntries(this.#calls) as Record<MethodName, number>,
      loadBalancers: this.#balancers.size,
      lbHostsTotal: [...this.#balancers.values()].reduce((sum, b) => sum + b.hosts, 0),
      lbHostsHash: [...this.#balancers.values()].reduce((sum, b) => (sum + fnv32a(String(b.hostsHash))) >>> 0, 0),
      routes: this.#routes.size,
      routesHash: [...this.#routes.values()].reduce(
        (sum, r) => (sum + fnv32a(`${r.destinationCIDR}>${r.targetNode}`)) >>> 0,
        0,
      ),
      throttled: this.#throttled,
      conflicts: this.#groups.conflicts,
      ...(this.batch ? { instancesListed: this.#instancesListed } : {}),
    };
  }

  /** Replaces `path` with one JSON line (temporary file, then rename). */
  writeCounters(path: string): void {
    writeFileSync(`${path}.tmp`, `${JSON.stringify(this.snapshot())}\n`);
    renameSync(`${path}.tmp`, path);
  }

  // CloudProvider
  loadBalancer(): LoadBalancer {
    return this;
  }
  instancesV2(): InstancesV2 {
    return this;
  }
  routes(): Routes {
    return this;
  }
  providerName(): string {
    return PROVIDER_NAME;
  }
  hasClusterID(): boolean {
    return true;
  }

  // InstancesV2
  async instanceExists(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    await this.#call('InstanceExists', signal);
    return !isGone(node.metadata?.name ?? '');
  }

  async instanceShutdown(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    await this.#call('InstanceShutdown', signal);
    return isShutdown(node.metadata?.name ?? '');
  }

  async instanceMetadata(node: V1Node, signal?: AbortSignal): Promise<InstanceMetadata> {
    await this.#call('InstanceMetadata', signal);
    return metadataOf(node.metadata?.name ?? '');
  }

  /**
   * The batch read, only with {@link FakeBench.batch} (an own property, `undefined` without it, so that the
   * app's facet proxy sees it as any method): page `pageToken` (a page number; the first page is 1) of the
   * instances `nodeName(0)` … `nodeName(instances - 1)`, with the metadata and shutdown state the per-Node
   * methods answer. One counted `ListInstanceStates` call per page (within the quota, like any call).
   */
  readonly listInstanceStates:
    ((pageToken: string | undefined, signal?: AbortSignal) => Promise<InstanceStatePage>) | undefined;

  async #listPage(batch: BatchRead, pageToken: string | undefined, signal?: AbortSignal): Promise<InstanceStatePage> {
    await this.#call('ListInstanceStates', signal);
    const page = pageToken === undefined ? 1 : Number(pageToken);
    if (!Number.isInteger(page) || page < 1)
      throw new Error(`fakebench: invalid page token ${JSON.stringify(pageToken)}`);
    const end = Math.min(page * batch.pageSize, batch.instances);
    const instances = [];
    for (let i = (page - 1) * batch.pageSize; i < end; i++) {
      const name = nodeName(i);
      instances.push({
        providerID: `${PROVIDER_NAME}://${name}`,
        metadata: metadataOf(name),
        shutdown: isShutdown(name),
      });
    }
    this.#instancesListed += instances.length;
    return end < batch.instances ? { instances, nextPageToken: String(page + 1) } : { instances };
  }

  // LoadBalancer
  /**
   * With `FAKEBENCH_GROUPS=1`: the Service's group label ({@link groupOf}); an own property, `undefined` otherwise
   * (so the provider declares no groups, as on the Go side).
   */
  readonly loadBalancerGroup: ((clusterName: string, service: V1Service) => string | undefined) | undefined;

  getLoadBalancer(
    _clusterName: string,
    service: V1Service,
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus | undefined> {
    return this.#lbCall('GetLoadBalancer', service, signal, () => {
      const b = this.#balancers.get(defaultLoadBalancerName(service));
      return b && statusOf(b.ip);
    });
  }

  getLoadBalancerName(_clusterName: string, service: V1Service): string {
    this.#calls.set('GetLoadBalancerName', this.#calls.get('GetLoadBalancerName')! + 1);
    return defaultLoadBalancerName(service);
  }

  ensureLoadBalancer(
    _clusterName: string,
    service: V1Service,
    nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus> {
    return this.#lbCall('EnsureLoadBalancer', service, signal, () => this.#ensure(service, nodes));
  }

  #ensure(service: V1Service, nodes: V1Node[]): V1LoadBalancerStatus {
    const name = defaultLoadBalancerName(service);
    const hosts = hostsOf(nodes);
    const existing = this.#balancers.get(name);
    if (existing) {
      Object.assign(existing, hosts);
      return statusOf(existing.ip);
    }
    if (this.#balancers.size >= MAX_OBJECTS) throw new Error('fakebench: too many load balancers');
    const n = ++this.#nextIP;
    const b = { ip: `198.18.${(n >>> 8) & 255}.${n & 255}`, ...hosts };
    this.#balancers.set(name, b);
    return statusOf(b.ip);
  }

  updateLoadBalancer(_clusterName: string, service: V1Service, nodes: V1Node[], signal?: AbortSignal): Promise<void> {
    return this.#lbCall('UpdateLoadBalancer', service, signal, () => {
      const b = this.#balancers.get(defaultLoadBalancerName(service));
      if (!b) {
        throw new Error(
          `fakebench: load balancer for service ${service.metadata?.namespace}/${service.metadata?.name} does not exist`,
        );
      }
      Object.assign(b, hostsOf(nodes));
    });
  }

  ensureLoadBalancerDeleted(_clusterName: string, service: V1Service, signal?: AbortSignal): Promise<void> {
    return this.#lbCall('EnsureLoadBalancerDeleted', service, signal, () => {
      this.#balancers.delete(defaultLoadBalancerName(service));
    });
  }

  // Routes
  async listRoutes(_clusterName: string, signal?: AbortSignal): Promise<Route[]> {
    await this.#call('ListRoutes', signal);
    return [...this.#routes.values()].map((r) => ({ ...r }));
  }

  async createRoute(_clusterName: string, nameHint: string, route: Route, signal?: AbortSignal): Promise<void> {
    await this.#call('CreateRoute', signal);
    if (!this.#routes.has(route.destinationCIDR) && this.#routes.size >= MAX_OBJECTS) {
      throw new Error('fakebench: too many routes');
    }
    const { targetNodeAddresses: _ignored, ...rest } = route;
    this.#routes.set(route.destinationCIDR, { ...rest, name: nameHint });
  }

  async deleteRoute(_clusterName: string, route: Route, signal?: AbortSignal): Promise<void> {
    await this.#call('DeleteRoute', signal);
    this.#routes.delete(route.destinationCIDR);
  }
}

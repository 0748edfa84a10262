/**
 * Tier-A in-process fake cloud "fakebench" for the side-by-side benchmark (bench/compare.ts): the
 * TypeScript twin of bench/upstream-ccm/fakebench.go, with the same semantics, counter names and
 * counters line, so both CCMs see the same cloud.
 *
 * - InstancesV2: every Node exists and runs; `instanceMetadata` returns providerID
 *   `fakebench://<node name>`, one InternalIP from an FNV-1a hash of the name
 *   (`10.<h>>16&255>.<h>>8&255>.<h&255>`), instance type `fb.standard-4`, zone `fakebench-<a|b|c>`
 *   (hash % 3) and region `fakebench-1`.
 * - LoadBalancer: keyed by the default LB name; `ensureLoadBalancer` keeps an existing balancer's IP or
 *   takes the next from a counter (`198.18.<n>>8&255>.<n&255>`); hosts (node names) are stored;
 *   `updateLoadBalancer` replaces them; `ensureLoadBalancerDeleted` forgets the balancer.
 * - Routes: a map keyed by destination CIDR.
 *
 * Memory is bounded by the live objects (at most {@link MAX_OBJECTS} balancers and routes; more is an
 * error). Env `FAKEBENCH_LATENCY_MS` adds a fixed delay (milliseconds, abortable) to every cloud call.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CloudProvider,
  defaultLoadBalancerName,
  type InstanceMetadata,
  type InstancesV2,
  type LoadBalancer,
  type Route,
  type Routes,
} from '@ccm-kit/cloud-provider';
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';

/** The provider name registered by bench/ts-ccm.ts and given as `--cloud-provider`. */
export const PROVIDER_NAME = 'fakebench';
/** Upper bound of the balancer table and of the route table, each. */
export const MAX_OBJECTS = 100_000;

/** Method names as printed in the counters line (identical to the Go side). */
export const METHOD_NAMES = [
  'InstanceExists',
  'InstanceShutdown',
  'InstanceMetadata',
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
  routes: number;
}

/** FNV-1a, 32 bits, over the UTF-8 bytes of `s` (Go's hash/fnv New32a). */
export function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
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
  hosts: string[];
}

function statusOf(ip: string): V1LoadBalancerStatus {
  return { ingress: [{ ip }] };
}

function hostNames(nodes: readonly V1Node[]): string[] {
  return nodes.map((n) => n.metadata?.name ?? '').sort();
}

/** The fake cloud; one instance per process. */
export class FakeBench implements CloudProvider, InstancesV2, LoadBalancer, Routes {
  readonly latencyMs: number;
  readonly #calls = new Map<MethodName, number>(METHOD_NAMES.map((m) => [m, 0]));
  #firstCallMs = 0;
  #nextIP = 0;
  readonly #balancers = new Map<string, Balancer>();
  readonly #routes = new Map<string, Route>();

  /** @throws Error when `latencyMs` is negative or not a number. */
  constructor(latencyMs = 0) {
    if (!Number.isFinite(latencyMs) || latencyMs < 0) {
      throw new Error(`FAKEBENCH_LATENCY_MS must be a non-negative number of milliseconds, got ${latencyMs}`);
    }
    this.latencyMs = latencyMs;
  }

  /** Reads `FAKEBENCH_LATENCY_MS` (ms, default 0). */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): FakeBench {
    const v = env.FAKEBENCH_LATENCY_MS;
    return new FakeBench(v === undefined || v === '' ? 0 : Number(v));
  }

  async #call(method: MethodName, signal?: AbortSignal): Promise<void> {
    this.#calls.set(method, this.#calls.get(method)! + 1);
    if (this.#firstCallMs === 0) this.#firstCallMs = Date.now();
    if (this.latencyMs > 0) await sleep(this.latencyMs, undefined, { signal });
  }

  snapshot(): CounterLine {
    return {
      impl: 'ts',
      pid: process.pid,
      timeMs: Date.now(),
      firstCallMs: this.#firstCallMs,
      calls: Object.fromEntries(this.#calls) as Record<MethodName, number>,
      loadBalancers: this.#balancers.size,
      lbHostsTotal: [...this.#balancers.values()].reduce((sum, b) => sum + b.hosts.length, 0),
      routes: this.#routes.size,
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
  async instanceExists(_node: V1Node, signal?: AbortSignal): Promise<boolean> {
    await this.#call('InstanceExists', signal);
    return true;
  }

  async instanceShutdown(_node: V1Node, signal?: AbortSignal): Promise<boolean> {
    await this.#call('InstanceShutdown', signal);
    return false;
  }

  async instanceMetadata(node: V1Node, signal?: AbortSignal): Promise<InstanceMetadata> {
    await this.#call('InstanceMetadata', signal);
    const name = node.metadata?.name ?? '';
    return {
      providerID: `${PROVIDER_NAME}://${name}`,
      instanceType: 'fb.standard-4',
      nodeAddresses: [{ type: 'InternalIP', address: fakebenchNodeIP(name) }],
      zone: fakebenchZone(name),
      region: 'fakebench-1',
    };
  }

  // LoadBalancer
  async getLoadBalancer(
    _clusterName: string,
    service: V1Service,
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus | undefined> {
    await this.#call('GetLoadBalancer', signal);
    const b = this.#balancers.get(defaultLoadBalancerName(service));
    return b && statusOf(b.ip);
  }

  getLoadBalancerName(_clusterName: string, service: V1Service): string {
    this.#calls.set('GetLoadBalancerName', this.#calls.get('GetLoadBalancerName')! + 1);
    return defaultLoadBalancerName(service);
  }

  async ensureLoadBalancer(
    _clusterName: string,
    service: V1Service,
    nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus> {
    await this.#call('EnsureLoadBalancer', signal);
    const name = defaultLoadBalancerName(service);
    const hosts = hostNames(nodes);
    const existing = this.#balancers.get(name);
    if (existing) {
      existing.hosts = hosts;
      return statusOf(existing.ip);
    }
    if (this.#balancers.size >= MAX_OBJECTS) throw new Error('fakebench: too many load balancers');
    const n = ++this.#nextIP;
    const b = { ip: `198.18.${(n >>> 8) & 255}.${n & 255}`, hosts };
    this.#balancers.set(name, b);
    return statusOf(b.ip);
  }

  async updateLoadBalancer(
    _clusterName: string,
    service: V1Service,
    nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#call('UpdateLoadBalancer', signal);
    const b = this.#balancers.get(defaultLoadBalancerName(service));
    if (!b) {
      throw new Error(
        `fakebench: load balancer for service ${service.metadata?.namespace}/${service.metadata?.name} does not exist`,
      );
    }
    b.hosts = hostNames(nodes);
  }

  async ensureLoadBalancerDeleted(_clusterName: string, service: V1Service, signal?: AbortSignal): Promise<void> {
    await this.#call('EnsureLoadBalancerDeleted', signal);
    this.#balancers.delete(defaultLoadBalancerName(service));
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

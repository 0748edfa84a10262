/**
 * The LoadBalancer facet of the local cloud: addresses from the pools (see `ipam.ts`), recorded on the
 * Service (see `allocation-store.ts`), realised by the data plane (TCP proxies, or nothing).
 *
 * - The allocation table is rebuilt from the Services' `local.ccm-kit.io/allocated-ips` annotations before
 *   the first call is answered (Services of type LoadBalancer without a `loadBalancerClass`, oldest first;
 *   an address claimed twice goes to the older Service and the other gets a new one at its next sync).
 * - `ensureLoadBalancer` validates the annotations and spec first: any problem fails the call with every
 *   problem named, records a Warning Event on the Service, and allocates nothing (an existing load balancer
 *   is left as it was). Then it plans the addresses, records them on the Service (rolled back in memory if
 *   the write fails), and applies the data plane. The status lists the addresses with `ipMode: VIP`.
 * - `getLoadBalancer` reports only load balancers this provider holds.
 * - `updateLoadBalancer` changes only the backends, in place; a load balancer the data plane does not run
 *   (for example after a restart) is ensured in full.
 * - `ensureLoadBalancerDeleted` stops the listeners, clears the annotation and releases the addresses; it is
 *   idempotent and succeeds when the Service is gone.
 * - `listLoadBalancers` lists the allocations held, each with the namespace, name and UID of its Service (one
 *   page: the table is in memory).
 */
import {
  defaultLoadBalancerName,
  type ListedLoadBalancer,
  type ListLoadBalancersOptions,
  type LoadBalancer,
  type LoadBalancerCapabilities,
  type LoadBalancerListPage,
} from '@ccm-kit/cloud-provider';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import { type EventRecorder } from '@ccm-kit/runtime/events';
import type { V1LoadBalancerStatus, V1Node, V1NodeAddress, V1Service } from '@kubernetes/client-node';
import { type ServiceStore, writeAllocation } from './allocation-store.js';
import {
  ANNOTATION_PROXY_PROTOCOL,
  formatProblems,
  invalidAnnotationError,
  type LoadBalancerOptions,
  parseAllocatedIPs,
  parseLoadBalancerOptions,
} from './annotations.js';
import { localCapabilities } from './capabilities.js';
import type { LocalConfig } from './config.js';
import { IPConflictError, Ipam, PoolExhaustedError } from './ipam.js';
import type { DataPlane } from './proxy/data-plane.js';
import { nodeTargets } from './proxy/service-proxy.js';

/** Event reasons recorded on Services. */
export const EVENT_REASONS = {
  invalidAnnotation: 'InvalidLoadBalancerAnnotation',
  unsupported: 'UnsupportedLoadBalancer',
  poolExhausted: 'LoadBalancerPoolExhausted',
  ipConflict: 'LoadBalancerIPConflict',
} as const;

/** What {@link LocalLoadBalancer} works with. */
export interface LocalLoadBalancerDeps {
  readonly config: LocalConfig;
  readonly store: ServiceStore;
  readonly recorder: EventRecorder;
  readonly dataPlane: DataPlane;
  /**
   * The addresses of a Node's machine as the cloud knows them (the inventory's), or undefined when it has none
   * (then the Node's `status.addresses` are used). The backends come from these first: the cloud-node controller
   * writes a Node's addresses after its providerID, and the service controller starts a host update for the
   * providerID but not for an address change (upstream's `shouldSyncUpdatedNode`), so backends read from the Node
   * alone stay empty when that update comes between the two writes.
   */
  readonly machineAddresses?: (node: V1Node) => readonly V1NodeAddress[] | undefined;
  /** Present when the data plane keeps running load balancers (the proxy); tells `updateLoadBalancer` what runs. */
  readonly isRunning?: (key: string) => boolean;
  readonly ipam?: Ipam;
  readonly logger?: Logger;
}

function serviceName(service: V1Service): string {
  return `${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`;
}

function serviceKey(service: V1Service): string {
  const uid = service.metadata?.uid;
  if (!uid) throw new Error(`local: service ${serviceName(service)} has no metadata.uid`);
  return uid;
}

/**
 * The status of a load balancer on `ips`. `ipMode` is `VIP`, or `Proxy` when the backends receive a PROXY
 * protocol header: then kube-proxy must not short-cut in-cluster traffic to the address straight to the
 * Pods, which would skip the header (KEP-1860, `status.loadBalancer.ingress[].ipMode`).
 */
export function loadBalancerStatus(ips: readonly string[], proxyProtocol = false): V1LoadBalancerStatus {
  return { ingress: ips.map((ip) => ({ ip, ipMode: proxyProtocol ? 'Proxy' : 'VIP' })) };
}

/** True when the upstream service controller manages this Service (type LoadBalancer, no class). */
function isOurs(service: V1Service): boolean {
  return service.spec?.type === 'LoadBalancer' && !service.spec.loadBalancerClass;
}

export class LocalLoadBalancer implements LoadBalancer {
  /** What this data plane supports (see `capabilities.ts`); the service controller checks Services against it. */
  readonly capabilities: LoadBalancerCapabilities;
  readonly ipam: Ipam;
  readonly #deps: LocalLoadBalancerDeps;
  readonly #logger: Logger;
  /** The Service of each allocation, by UID (the allocation key): what `listLoadBalancers` reports. */
  readonly #services = new Map<string, { namespace: string; name: string }>();
  #ready: Promise<void> | undefined;

  constructor(deps: LocalLoadBalancerDeps) {
    this.#deps = deps;
    this.capabilities = localCapabilities(deps.config);
    this.ipam = deps.ipam ?? new Ipam();
    this.#logger = deps.logger ?? createLogger('local-lb');
  }

  /**
   * Rebuilds the allocation table from the Services' annotations, once; later calls share the result.
   * A failed rebuild is retried by the next call.
   */
  ready(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#ready ??= this.#rebuild(signal).catch((err) => {
      this.#ready = undefined;
      throw new Error(`local: cannot rebuild the allocation table from Services: ${(err as Error).message}`, {
        cause: err,
      });
    });
    return this.#ready;
  }

  getLoadBalancerName(_clusterName: string, service: V1Service): string {
    return defaultLoadBalancerName(service);
  }

  async getLoadBalancer(
    _clusterName: string,
    service: V1Service,
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus | undefined> {
    await this.ready(signal);
    const ips = this.ipam.get(serviceKey(service));
    const header = service.metadata?.annotations?.[ANNOTATION_PROXY_PROTOCOL];
    return ips ? loadBalancerStatus(ips, header === 'v1' || header === 'v2') : undefined;
  }

  /**
   * @throws Error naming every invalid annotation or unsupported spec field (a Warning Event is recorded); with
   *   invalid annotations its `cause` is an `InvalidAnnotationError` listing them.
   * @throws PoolExhaustedError / IPConflictError when no address can be given (a Warning Event is recorded).
   * @throws the API error when the allocation cannot be recorded on the Service, or an Error when listeners
   *   cannot be bound.
   */
  async ensureLoadBalancer(
    _clusterName: string,
    service: V1Service,
    nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus> {
    const key = serviceKey(service);
    const options = this.#validate(service);
    await this.ready(signal);
    const ips = await this.#allocate(key, service, options, signal);
    this.#remember(key, service);
    await this.#deps.dataPlane.ensure(key, serviceName(service), {
      ips,
      ports: options.ports,
      nodes: nodeTargets(nodes, this.#deps.machineAddresses),
      algorithm: options.algorithm,
      connectTimeoutMs: options.connectTimeoutMs,
      healthCheckIntervalMs: options.healthCheckIntervalMs,
      udpIdleTimeoutMs: options.udpIdleTimeoutMs,
      ...(options.sourceRanges ? { sourceRanges: options.sourceRanges } : {}),
      ...(options.proxyProtocol ? { proxyProtocol: options.proxyProtocol } : {}),
      ...(options.healthCheck ? { healthCheck: options.healthCheck } : {}),
    });
    return loadBalancerStatus(ips, options.proxyProtocol !== undefined);
  }

  /** @throws as {@link ensureLoadBalancer} when the load balancer has to be ensured in full. */
  async updateLoadBalancer(
    clusterName: string,
    service: V1Service,
    nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<void> {
    const key = serviceKey(service);
    await this.ready(signal);
    const running = this.#deps.isRunning ? this.#deps.isRunning(key) : this.ipam.get(key) !== undefined;
    if (running) {
      await this.#deps.dataPlane.updateNodes(key, nodeTargets(nodes, this.#deps.machineAddresses));
      return;
    }
    await this.ensureLoadBalancer(clusterName, service, nodes, signal);
  }

  /** @throws the API error when the annotation cannot be cleared (the addresses stay held; the call is retried). */
  async ensureLoadBalancerDeleted(_clusterName: string, service: V1Service, signal?: AbortSignal): Promise<void> {
    const key = serviceKey(service);
    await this.ready(signal);
    // Clear the record first: if that fails, the load balancer keeps serving and the delete is retried.
    await writeAllocation(this.#deps.store, service, [], signal);
    await this.#deps.dataPlane.remove(key);
    const held = this.ipam.get(key);
    this.ipam.release(key);
    this.#services.delete(key);
    if (held) this.#logger.info('Load balancer deleted', { service: serviceName(service), released: held.join(',') });
  }

  /**
   * Every allocation held, named as `getLoadBalancerName` names it, with its Service (one page). An allocation
   * whose Service is not known is listed as malformed.
   */
  async listLoadBalancers(_clusterName: string, options: ListLoadBalancersOptions = {}): Promise<LoadBalancerListPage> {
    await this.ready(options.signal);
    const loadBalancers = this.ipam.entries().map(([uid]): ListedLoadBalancer => {
      const name = defaultLoadBalancerName({ metadata: { uid } });
      const svc = this.#services.get(uid);
      return svc ? { name, service: { ...svc, uid } } : { name, malformed: `no Service recorded for UID ${uid}` };
    });
    return { loadBalancers };
  }

  #remember(key: string, service: V1Service): void {
    this.#services.set(key, { namespace: service.metadata?.namespace ?? '', name: service.metadata?.name ?? '' });
  }

  #validate(service: V1Service): LoadBalancerOptions {
    const result = parseLoadBalancerOptions(service, this.#deps.config);
    if (result.ok) return result.options;
    const message = formatProblems(result.problems);
    const reason = result.problems.some((p) => p.kind === 'annotation')
      ? EVENT_REASONS.invalidAnnotation
      : EVENT_REASONS.unsupported;
    this.#warn(service, reason, message);
    const cause = invalidAnnotationError(service, result.problems);
    throw new Error(
      `local: cannot create the load balancer of ${serviceName(service)}: ${message}`,
      cause ? { cause } : undefined,
    );
  }

  async #allocate(key: string, service: V1Service, options: LoadBalancerOptions, signal?: AbortSignal) {
    const { ipam } = this;
    // A Service the table does not know may carry its own record (restored from a backup, or claimed
    // twice at rebuild): take back what is still free.
    if (ipam.get(key) === undefined) {
      const recorded = parseAllocatedIPs(service);
      if (recorded.length > 0) ipam.claim(key, recorded);
    }
    const previous = ipam.get(key) ?? [];
    let ips: string[];
    try {
      ips = ipam.plan(key, {
        pool: options.pool,
        families: options.families,
        staticIPs: options.staticIPs,
      });
    } catch (err) {
      if (err instanceof PoolExhaustedError) this.#warn(service, EVENT_REASONS.poolExhausted, err.message);
      if (err instanceof IPConflictError) this.#warn(service, EVENT_REASONS.ipConflict, err.message);
      throw err;
    }
    // Hold old and new together until the record is written; roll back to the old ones on failure.
    ipam.reserve(key, ips);
    try {
      await writeAllocation(this.#deps.store, service, ips, signal);
    } catch (err) {
      ipam.set(key, previous);
      throw err;
    }
    ipam.set(key, ips);
    if (previous.join(',') !== ips.join(',')) {
      this.#logger.info('Load balancer addresses allocated', {
        service: serviceName(service),
        pool: options.pool.name,
        ips: ips.join(','),
        ...(previous.length > 0 ? { previous: previous.join(',') } : {}),
      });
    }
    return ips;
  }

  #warn(service: V1Service, reason: string, message: string): void {
    this.#logger.warn('Load balancer problem', { service: serviceName(service), reason, message });
    this.#deps.recorder.event(
      {
        apiVersion: 'v1',
        kind: 'Service',
        name: service.metadata?.name ?? '',
        namespace: service.metadata?.namespace ?? '',
        ...(service.metadata?.uid ? { uid: service.metadata.uid } : {}),
        ...(service.metadata?.resourceVersion ? { resourceVersion: service.metadata.resourceVersion } : {}),
      },
      'Warning',
      reason,
      message,
    );
  }

  async #rebuild(signal?: AbortSignal): Promise<void> {
    const services = (await this.#deps.store.list(signal)).filter(isOurs);
    services.sort((a, b) => {
      const ta = new Date(a.metadata?.creationTimestamp ?? 0).getTime();
      const tb = new Date(b.metadata?.creationTimestamp ?? 0).getTime();
      return ta - tb || serviceName(a).localeCompare(serviceName(b));
    });
    let claimed = 0;
    for (const service of services) {
      const ips = parseAllocatedIPs(service);
      const uid = service.metadata?.uid;
      if (ips.length === 0 || !uid) continue;
      const result = this.ipam.claim(uid, ips);
      if (result.claimed.length > 0) this.#remember(uid, service);
      claimed += result.claimed.length;
      for (const c of result.conflicts) {
        this.#logger.warn('Address recorded on two Services; the older keeps it', {
          service: serviceName(service),
          ip: c.ip,
        });
      }
    }
    this.#logger.info('Allocation table rebuilt from Services', {
      services: services.length,
      addresses: claimed,
    });
  }
}

/**
 * The listeners of one Service's load balancer: one {@link TcpProxy} or {@link UdpProxy} per (allocated
 * address, Service port), all sharing one {@link HealthChecker}. The backends are each node's InternalIP and
 * the port's node port. The checks are TCP connects to the TCP backends with `externalTrafficPolicy:
 * Cluster`, and `GET /healthz` on each node's `healthCheckNodePort` with `Local` (then a node's health
 * decides for every port; a node starts out of rotation until its first check passes).
 * {@link ServiceProxy.apply} moves to a new spec by difference: unchanged listeners keep running and get
 * their new settings in place; only added or removed (address, port, protocol) listeners are bound or closed.
 */
import { createLogger, type Logger } from '@ccm-kit/runtime';
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';
import type { Algorithm, HealthCheckNodePort, ProxyPort, ProxyProtocolVersion } from '../annotations.js';
import { canonicalIP } from '../ip.js';
import type { ListenerSettings } from './balancing.js';
import { type Backend, backendKey, HealthChecker, type HealthCheckerOptions, type HealthTarget } from './health.js';
import { TcpProxy } from './tcp-proxy.js';
import { UdpProxy } from './udp-proxy.js';

/** A node's InternalIP addresses, one per family. */
export interface NodeTarget {
  readonly name: string;
  readonly ipv4?: string;
  readonly ipv6?: string;
}

/**
 * The first InternalIP of each family of every node; nodes with none are left out. `addressesOf` answers the
 * addresses the cloud knows for a node's machine (undefined: use the Node's `status.addresses`).
 */
export function nodeTargets(
  nodes: readonly V1Node[],
  addressesOf?: (node: V1Node) => readonly V1NodeAddress[] | undefined,
): NodeTarget[] {
  const out: NodeTarget[] = [];
  for (const node of nodes) {
    let ipv4: string | undefined;
    let ipv6: string | undefined;
    for (const a of addressesOf?.(node) ?? node.status?.addresses ?? []) {
      if (a.type !== 'InternalIP') continue;
      const ip = canonicalIP(a.address);
      if (ip === undefined) continue;
      if (ip.includes(':')) ipv6 ??= ip;
      else ipv4 ??= ip;
    }
    if (ipv4 === undefined && ipv6 === undefined) continue;
    out.push({
      name: node.metadata?.name ?? '',
      ...(ipv4 !== undefined ? { ipv4 } : {}),
      ...(ipv6 !== undefined ? { ipv6 } : {}),
    });
  }
  return out;
}

/**
 * The backends of a listener on `address`: each node's InternalIP of the listener's family (else its other
 * family: the proxy may cross families) and `nodePort`.
 */
export function backendsFor(address: string, nodes: readonly NodeTarget[], nodePort: number): Backend[] {
  const v6 = address.includes(':');
  const out: Backend[] = [];
  for (const n of nodes) {
    const host = v6 ? (n.ipv6 ?? n.ipv4) : (n.ipv4 ?? n.ipv6);
    if (host !== undefined) out.push({ host, port: nodePort });
  }
  return out;
}

/** What a Service's load balancer should look like. Durations in milliseconds. */
export interface ServiceProxySpec {
  readonly ips: readonly string[];
  readonly ports: readonly ProxyPort[];
  readonly nodes: readonly NodeTarget[];
  readonly algorithm: Algorithm;
  readonly connectTimeoutMs: number;
  readonly healthCheckIntervalMs: number;
  readonly udpIdleTimeoutMs: number;
  readonly sourceRanges?: readonly string[];
  readonly proxyProtocol?: ProxyProtocolVersion;
  /** With `externalTrafficPolicy: Local`: nodes are checked with `GET <path>` on this node port. */
  readonly healthCheck?: HealthCheckNodePort;
}

/** Options of {@link ServiceProxy}. */
export interface ServiceProxyOptions {
  /** Time open connections get when a listener is removed, in ms (default 0). */
  drainMs?: number;
  /** Probe of the health checker (tests). */
  probe?: HealthCheckerOptions['probe'];
  logger?: Logger;
}

/** A TCP or UDP listener. */
export type Listener = TcpProxy | UdpProxy;

/** `address:port` for TCP (IPv6 in brackets), `address:port/UDP` for UDP. */
const listenerKey = (ip: string, port: ProxyPort) =>
  `${backendKey({ host: ip, port: port.port })}${port.protocol === 'UDP' ? '/UDP' : ''}`;

/** Closes `listener`: TCP connections get `drainMs` (or until `signal` aborts); UDP flows end at once. */
function closeListener(listener: Listener, drainMs: number, signal?: AbortSignal): Promise<void> {
  return listener.protocol === 'TCP' ? listener.close(drainMs, signal) : listener.close();
}

/** The health-check target standing for `backend`: itself (TCP check), or its node's health-check port. */
function healthTarget(backend: Backend, healthCheck: HealthCheckNodePort | undefined): HealthTarget {
  return healthCheck === undefined ? backend : { host: backend.host, port: healthCheck.port, path: healthCheck.path };
}

export class ServiceProxy {
  /** `namespace/name` of the Service, for logs. */
  readonly name: string;
  readonly health: HealthChecker;
  readonly #listeners = new Map<string, Listener>();
  readonly #drainMs: number;
  readonly #logger: Logger;
  #spec: ServiceProxySpec | undefined;
  #closed = false;

  constructor(name: string, initialIntervalMs: number, options: ServiceProxyOptions = {}) {
    this.name = name;
    this.#drainMs = options.drainMs ?? 0;
    this.#logger = (options.logger ?? createLogger('local-proxy')).with({ service: name });
    this.health = new HealthChecker({
      intervalMs: initialIntervalMs,
      logger: this.#logger,
      ...(options.probe ? { probe: options.probe } : {}),
    });
  }

  /** The listeners, keyed `address:port` (TCP) or `address:port/UDP`. */
  listeners(): ReadonlyMap<string, Listener> {
    return this.#listeners;
  }

  /**
   * Moves to `spec`: closes listeners no longer wanted, updates the others in place, binds new ones.
   * @throws Error listing every listener that could not be bound (the others are in place).
   */
  async apply(spec: ServiceProxySpec): Promise<void> {
    if (this.#closed) throw new Error(`load balancer of ${this.name} is stopped`);
    this.#spec = spec;
    const wanted = new Map<string, { ip: string; port: ProxyPort }>();
    for (const ip of spec.ips) for (const port of spec.ports) wanted.set(listenerKey(ip, port), { ip, port });

    const removed = [...this.#listeners].filter(([key]) => !wanted.has(key));
    for (const [key] of removed) this.#listeners.delete(key);
    await Promise.all(removed.map(([, l]) => closeListener(l, this.#drainMs)));
    for (const [key] of removed) this.#logger.info('Listener stopped', { listener: key });

    this.health.setIntervalMs(spec.healthCheckIntervalMs);
    const failures: string[] = [];
    await Promise.all(
      [...wanted].map(async ([key, { ip, port }]) => {
        const backends = backendsFor(ip, spec.nodes, port.nodePort);
        const settings: ListenerSettings = {
          backends,
          algorithm: spec.algorithm,
          connectTimeoutMs: spec.connectTimeoutMs,
          idleTimeoutMs: spec.udpIdleTimeoutMs,
          sourceRanges: spec.sourceRanges,
          proxyProtocol: spec.proxyProtocol,
        };
        const existing = this.#listeners.get(key);
        if (existing) {
          existing.update(settings);
          return;
        }
        try {
          const listen = port.protocol === 'UDP' ? UdpProxy.listen : TcpProxy.listen;
          const listener = await listen({
            ...settings,
            address: ip,
            port: port.port,
            isHealthy: (b) => this.health.isHealthy(backendKey(healthTarget(b, this.#spec?.healthCheck))),
            logger: this.#logger,
          });
          if (this.#closed) {
            await listener.close();
            return;
          }
          this.#listeners.set(key, listener);
          this.#logger.info('Listener started', {
            listener: key,
            nodePort: port.nodePort,
            backends: backends.length,
          });
        } catch (err) {
          failures.push((err as Error).message);
        }
      }),
    );
    this.health.setTargets(this.#healthTargets());
    this.health.start();
    // Health-check-port targets start out of rotation: wait for their verdict before reporting success.
    if (spec.healthCheck !== undefined) await this.health.firstChecks();
    if (failures.length > 0) throw new Error(failures.join('; '));
  }

  /**
   * Replaces the nodes only (the backends of every listener), keeping everything else. With a health-check
   * node port, resolves once new nodes had their first check.
   */
  async setNodes(nodes: readonly NodeTarget[]): Promise<void> {
    if (!this.#spec || this.#closed) return;
    this.#spec = { ...this.#spec, nodes };
    for (const listener of this.#listeners.values()) {
      const port = this.#portOf(listener);
      if (port) listener.update({ backends: backendsFor(listener.address, nodes, port.nodePort) });
    }
    this.health.setTargets(this.#healthTargets());
    if (this.#spec.healthCheck !== undefined) await this.health.firstChecks();
  }

  #portOf(listener: Listener): ProxyPort | undefined {
    return this.#spec?.ports.find((p) => p.port === listener.port && p.protocol === listener.protocol);
  }

  /**
   * What the checker probes: each node's health-check port (`Local`), or every TCP backend (`Cluster`; a UDP
   * node port cannot be probed by connecting, so UDP backends count as healthy).
   */
  #healthTargets(): HealthTarget[] {
    const healthCheck = this.#spec?.healthCheck;
    const targets = new Map<string, HealthTarget>();
    for (const listener of this.#listeners.values()) {
      if (healthCheck === undefined && listener.protocol === 'UDP') continue;
      for (const b of listener.settings.backends) {
        const target = healthTarget(b, healthCheck);
        targets.set(backendKey(target), target);
      }
    }
    return [...targets.values()];
  }

  /**
   * Stops the health checks and every listener: open TCP connections get `drainMs`, or until `signal` aborts;
   * UDP flows end at once. Idempotent.
   */
  async close(drainMs = this.#drainMs, signal?: AbortSignal): Promise<void> {
    this.#closed = true;
    this.health.stop();
    const all = [...this.#listeners.values()];
    this.#listeners.clear();
    await Promise.all(all.map((l) => closeListener(l, drainMs, signal)));
  }
}

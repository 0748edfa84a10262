/**
 * The listeners of one Service's load balancer: one {@link TcpProxy} per (allocated address, Service port),
 * all sharing one {@link HealthChecker} over the backends (each node's InternalIP and the port's node port).
 * {@link ServiceProxy.apply} moves to a new spec by difference: unchanged listeners keep running and get
 * their new settings in place; only added or removed (address, port) pairs are bound or closed.
 */
import { createLogger, type Logger } from '@ccm-kit/runtime';
import type { V1Node } from '@kubernetes/client-node';
import type { Algorithm, ProxyPort } from '../annotations.js';
import { canonicalIP } from '../ip.js';
import { type Backend, backendKey, HealthChecker, type HealthCheckerOptions } from './health.js';
import { TcpProxy } from './tcp-proxy.js';

/** A node's InternalIP addresses, one per family. */
export interface NodeTarget {
  readonly name: string;
  readonly ipv4?: string;
  readonly ipv6?: string;
}

/** The first InternalIP of each family of every node; nodes with none are left out. */
export function nodeTargets(nodes: readonly V1Node[]): NodeTarget[] {
  const out: NodeTarget[] = [];
  for (const node of nodes) {
    let ipv4: string | undefined;
    let ipv6: string | undefined;
    for (const a of node.status?.addresses ?? []) {
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
  readonly sourceRanges?: readonly string[];
}

/** Options of {@link ServiceProxy}. */
export interface ServiceProxyOptions {
  /** Time open connections get when a listener is removed, in ms (default 0). */
  drainMs?: number;
  /** Probe of the health checker (tests). */
  probe?: HealthCheckerOptions['probe'];
  logger?: Logger;
}

const listenerKey = (ip: string, port: number) => backendKey({ host: ip, port });

export class ServiceProxy {
  /** `namespace/name` of the Service, for logs. */
  readonly name: string;
  readonly health: HealthChecker;
  readonly #listeners = new Map<string, TcpProxy>();
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

  /** The listeners, keyed `address:port`. */
  listeners(): ReadonlyMap<string, TcpProxy> {
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
    for (const ip of spec.ips)
      for (const port of spec.ports) wanted.set(listenerKey(ip, port.port), { ip, port });

    const removed = [...this.#listeners].filter(([key]) => !wanted.has(key));
    for (const [key] of removed) this.#listeners.delete(key);
    await Promise.all(removed.map(([, l]) => l.close(this.#drainMs)));
    for (const [key] of removed) this.#logger.info('Listener stopped', { listener: key });

    this.health.setIntervalMs(spec.healthCheckIntervalMs);
    const allBackends = new Map<string, Backend>();
    const failures: string[] = [];
    await Promise.all(
      [...wanted].map(async ([key, { ip, port }]) => {
        const backends = backendsFor(ip, spec.nodes, port.nodePort);
        for (const b of backends) allBackends.set(backendKey(b), b);
        const settings = {
          backends,
          algorithm: spec.algorithm,
          connectTimeoutMs: spec.connectTimeoutMs,
          sourceRanges: spec.sourceRanges,
        };
        const existing = this.#listeners.get(key);
        if (existing) {
          existing.update(settings);
          return;
        }
        try {
          const listener = await TcpProxy.listen({
            ...settings,
            address: ip,
            port: port.port,
            isHealthy: (k) => this.health.isHealthy(k),
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
    this.health.setTargets([...allBackends.values()]);
    this.health.start();
    if (failures.length > 0) throw new Error(failures.join('; '));
  }

  /** Replaces the nodes only (the backends of every listener), keeping everything else. */
  setNodes(nodes: readonly NodeTarget[]): void {
    if (!this.#spec || this.#closed) return;
    this.#spec = { ...this.#spec, nodes };
    const allBackends = new Map<string, Backend>();
    for (const listener of this.#listeners.values()) {
      const port = this.#spec.ports.find((p) => p.port === listener.port);
      if (!port) continue;
      const backends = backendsFor(listener.address, nodes, port.nodePort);
      for (const b of backends) allBackends.set(backendKey(b), b);
      listener.update({ backends });
    }
    this.health.setTargets([...allBackends.values()]);
  }

  /** Stops the health checks and every listener (open connections get `drainMs`). Idempotent. */
  async close(drainMs = this.#drainMs): Promise<void> {
    this.#closed = true;
    this.health.stop();
    const all = [...this.#listeners.values()];
    this.#listeners.clear();
    await Promise.all(all.map((l) => l.close(drainMs)));
  }
}

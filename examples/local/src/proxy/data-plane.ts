/**
 * Data planes: what realises a load balancer once its addresses are allocated.
 * - `proxy` ({@link ProxyDataPlane}): in-process TCP and UDP proxies on the allocated addresses.
 * - `none` ({@link NoDataPlane}): nothing; the addresses are only allocated and reported in the status
 *   (for an external speaker such as kube-vip, or for tests of the allocation alone).
 */
import type { Logger } from '@ccm-kit/runtime';
import type { HealthCheckerOptions } from './health.js';
import { type NodeTarget, ServiceProxy, type ServiceProxySpec } from './service-proxy.js';

/** Realises load balancers, keyed by Service UID. */
export interface DataPlane {
  /** Creates or moves the load balancer of `key` (`name` is `namespace/name`, for logs). */
  ensure(key: string, name: string, spec: ServiceProxySpec): Promise<void>;
  /** Replaces the backends of an existing load balancer; a no-op when `key` has none. */
  updateNodes(key: string, nodes: readonly NodeTarget[]): Promise<void>;
  /** Stops the load balancer of `key`; a no-op when it has none. */
  remove(key: string): Promise<void>;
  /**
   * Stops everything (process shutdown): open connections get the drain time, or until `signal` aborts.
   */
  close(signal?: AbortSignal): Promise<void>;
}

/** The `none` data plane. */
export class NoDataPlane implements DataPlane {
  async ensure(): Promise<void> {}
  async updateNodes(): Promise<void> {}
  async remove(): Promise<void> {}
  async close(): Promise<void> {}
}

/** Options of {@link ProxyDataPlane}. */
export interface ProxyDataPlaneOptions {
  /** Time open connections get when a listener stops, in ms (default 0). */
  drainMs?: number;
  /** Health probe override (tests). */
  probe?: HealthCheckerOptions['probe'];
  logger?: Logger;
}

/** The `proxy` data plane: one {@link ServiceProxy} per Service. */
export class ProxyDataPlane implements DataPlane {
  readonly #proxies = new Map<string, ServiceProxy>();
  readonly #options: ProxyDataPlaneOptions;
  #closed = false;

  constructor(options: ProxyDataPlaneOptions = {}) {
    this.#options = options;
  }

  /** The proxy of `key`, if any (tests and diagnostics). */
  get(key: string): ServiceProxy | undefined {
    return this.#proxies.get(key);
  }

  /** @throws Error when listeners cannot be bound, or after {@link close}. */
  async ensure(key: string, name: string, spec: ServiceProxySpec): Promise<void> {
    if (this.#closed) throw new Error('the proxy data plane is shut down');
    let proxy = this.#proxies.get(key);
    if (!proxy) {
      proxy = new ServiceProxy(name, spec.healthCheckIntervalMs, this.#options);
      this.#proxies.set(key, proxy);
    }
    try {
      await proxy.apply(spec);
    } catch (err) {
      // A load balancer with no listener at all is not running: forget it, so that the next
      // updateLoadBalancer ensures it in full instead of only changing backends.
      if (proxy.listeners().size === 0 && this.#proxies.get(key) === proxy) {
        this.#proxies.delete(key);
        await proxy.close();
      }
      throw err;
    }
  }

  async updateNodes(key: string, nodes: readonly NodeTarget[]): Promise<void> {
    await this.#proxies.get(key)?.setNodes(nodes);
  }

  async remove(key: string): Promise<void> {
    const proxy = this.#proxies.get(key);
    if (!proxy) return;
    this.#proxies.delete(key);
    await proxy.close();
  }

  /**
   * Stops every proxy, giving open connections the drain time, or until `signal` aborts (then they are cut).
   * Idempotent.
   */
  async close(signal?: AbortSignal): Promise<void> {
    this.#closed = true;
    const all = [...this.#proxies.values()];
    this.#proxies.clear();
    await Promise.all(all.map((p) => p.close(undefined, signal)));
  }
}

/**
 * Load-balancer groups (`LoadBalancer.loadBalancerGroup`, docs/decisions/0207-load-balancer-groups.md): at most one
 * holder per group at a time, handed on in arrival order. Holders are the service controller's queue keys (which
 * never block a worker: a key whose group is busy waits here, outside the queue, and is handed back to the queue
 * when its turn comes) and single calls (the host updates of a node sync, the orphan collector's delete), which
 * wait. One gate per LoadBalancer facet object ({@link loadBalancerGroupGate}), shared by every controller of the
 * process that calls the cloud for load balancers.
 */
import type { LoadBalancer } from '@ccm-kit/cloud-provider';
import type { V1Service } from '@kubernetes/client-node';

type Holder = { readonly key: string; reserved: boolean } | { readonly token: symbol };
type Waiter =
  | { readonly key: string; readonly ready: (key: string) => void }
  | { readonly token: symbol; readonly resolve: () => void; readonly reject: (err: unknown) => void };

/** One holder per group; see the module notes. */
export class LoadBalancerGroupGate {
  readonly #holders = new Map<string, Holder>();
  readonly #waiters = new Map<string, Waiter[]>();
  /** Per queue key, the group its turn was handed to (reserved until the key comes back from the queue). */
  readonly #reservations = new Map<string, string>();

  /**
   * Takes `group` for the queue key `key` without waiting.
   * @param ready - called (once) with `key` when the group is handed to it; the caller re-adds the key to its queue.
   * @returns true when `key` now holds `group` (release it with {@link LoadBalancerGroupGate.releaseKey}); false
   *   when another holder has it: `key` waits in line (once, however often it is offered) and is not the caller's
   *   to process now.
   */
  tryTakeForKey(group: string, key: string, ready: (key: string) => void): boolean {
    const reserved = this.#reservations.get(key);
    if (reserved !== undefined && reserved !== group) {
      // Its turn came on a group it has left (the Service's group changed): hand that group on.
      this.releaseKey(reserved, key);
    }
    const holder = this.#holders.get(group);
    if (holder === undefined) {
      this.#holders.set(group, { key, reserved: false });
      return true;
    }
    if ('key' in holder && holder.key === key) {
      holder.reserved = false;
      this.#reservations.delete(key);
      return true;
    }
    const line = this.#line(group);
    if (!line.some((w) => 'key' in w && w.key === key)) line.push({ key, ready });
    return false;
  }

  /** Hands on the group whose turn was reserved for the queue key `key` (which now needs no group), if any. */
  releaseReservation(key: string): void {
    const reserved = this.#reservations.get(key);
    if (reserved !== undefined) this.releaseKey(reserved, key);
  }

  /** Releases `group` held (or reserved) by the queue key `key`, and hands it to the next in line. */
  releaseKey(group: string, key: string): void {
    const holder = this.#holders.get(group);
    if (holder === undefined || !('key' in holder) || holder.key !== key) return;
    this.#reservations.delete(key);
    this.#handOn(group);
  }

  /**
   * Runs `call` while holding `group`, waiting for it first (in line with the queue keys).
   * @throws `signal.reason` when `signal` aborts while waiting (the call is not made); whatever `call` throws.
   */
  async run<T>(group: string, call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const token = Symbol(group);
    await this.#take(group, token, signal);
    try {
      return await call();
    } finally {
      const holder = this.#holders.get(group);
      if (holder !== undefined && 'token' in holder && holder.token === token) this.#handOn(group);
    }
  }

  /** Whether anything holds `group` (for tests and metrics). */
  isHeld(group: string): boolean {
    return this.#holders.has(group);
  }

  #take(group: string, token: symbol, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (!this.#holders.has(group)) {
      this.#holders.set(group, { token });
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const line = this.#line(group);
        const i = line.findIndex((w) => 'token' in w && w.token === token);
        if (i >= 0) line.splice(i, 1);
        if (line.length === 0) this.#waiters.delete(group);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#line(group).push({
        token,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      });
    });
  }

  #line(group: string): Waiter[] {
    let line = this.#waiters.get(group);
    if (line === undefined) {
      line = [];
      this.#waiters.set(group, line);
    }
    return line;
  }

  /** Frees `group` and gives it to the first in line: a call resumes; a queue key is reserved and handed back. */
  #handOn(group: string): void {
    this.#holders.delete(group);
    const line = this.#waiters.get(group);
    const next = line?.shift();
    if (line !== undefined && line.length === 0) this.#waiters.delete(group);
    if (next === undefined) return;
    if ('key' in next) {
      this.#holders.set(group, { key: next.key, reserved: true });
      this.#reservations.set(next.key, group);
      next.ready(next.key);
    } else {
      this.#holders.set(group, { token: next.token });
      next.resolve();
    }
  }
}

const gates = new WeakMap<object, LoadBalancerGroupGate>();

/**
 * The gate of a LoadBalancer facet object: the same for every controller that got this object from the provider
 * (the app gives every controller the same provider, whose facet getter returns the same object each time).
 */
export function loadBalancerGroupGate(balancer: LoadBalancer): LoadBalancerGroupGate {
  let gate = gates.get(balancer);
  if (gate === undefined) {
    gate = new LoadBalancerGroupGate();
    gates.set(balancer, gate);
  }
  return gate;
}

/**
 * The group of `service` by the provider's `loadBalancerGroup`: `undefined` when the provider declares no groups or
 * the Service is in none (`undefined` or `''`).
 * @throws Error `load-balancer group of <ns>/<name>: <cause>` when the provider throws, or answers a non-string.
 */
export function groupOfService(balancer: LoadBalancer, clusterName: string, service: V1Service): string | undefined {
  if (typeof balancer.loadBalancerGroup !== 'function') return undefined;
  const where = `load-balancer group of ${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`;
  let group: unknown;
  try {
    group = balancer.loadBalancerGroup(clusterName, service);
  } catch (err) {
    throw new Error(`${where}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (group === undefined || group === null || group === '') return undefined;
  if (typeof group !== 'string') {
    throw new TypeError(`${where}: loadBalancerGroup must return a string or undefined, got ${typeof group}`);
  }
  return group;
}

/**
 * The service workers' view of the `service` queue with load-balancer groups (docs/decisions/0207): a key whose
 * group another sync holds is not handed to a worker. It is put aside in the group's line
 * (`LoadBalancerGroupGate`) and marked done on the queue without `forget` or a rate-limited add, so waiting is no
 * failure and leaves its backoff as it was; when its turn comes the gate re-adds it. A key handed to a worker holds
 * its group until `done`. Keys in no group pass straight through, as without groups.
 */
import type { LoadBalancerGroupGate } from '../shared/load-balancer-groups.js';
import type { KeyQueue } from './types.js';

export class GroupedServiceQueue implements KeyQueue {
  readonly #inner: KeyQueue;
  readonly #gate: LoadBalancerGroupGate;
  readonly #groupOf: (key: string) => string | undefined;
  /** The group each key handed to a worker holds. */
  readonly #held = new Map<string, string>();
  /** Why a key's group could not be read, for its reconcile to throw. */
  readonly #groupErrors = new Map<string, unknown>();

  /**
   * @param groupOf - the group of the Service with this key now (`undefined`: none); may throw, and the key is then
   *   handed out without a group and {@link GroupedServiceQueue.takeGroupError} returns the error.
   */
  constructor(inner: KeyQueue, gate: LoadBalancerGroupGate, groupOf: (key: string) => string | undefined) {
    this.#inner = inner;
    this.#gate = gate;
    this.#groupOf = groupOf;
  }

  async get(signal?: AbortSignal): Promise<string | undefined> {
    for (;;) {
      const key = await this.#inner.get(signal);
      if (key === undefined) return undefined;
      let group: string | undefined;
      try {
        group = this.#groupOf(key);
      } catch (err) {
        this.#groupErrors.set(key, err);
        group = undefined;
      }
      if (group === undefined) {
        this.#gate.releaseReservation(key);
        return key;
      }
      if (this.#gate.tryTakeForKey(group, key, (k) => this.#inner.add(k))) {
        this.#held.set(key, group);
        return key;
      }
      // Waits in the group's line, outside the queue: done without forget, so its backoff is untouched.
      this.#inner.done(key);
    }
  }

  /** The error of reading `key`'s group at its last `get`, once (then forgotten). */
  takeGroupError(key: string): unknown {
    const err = this.#groupErrors.get(key);
    this.#groupErrors.delete(key);
    return err;
  }

  done(key: string): void {
    const group = this.#held.get(key);
    if (group !== undefined) {
      this.#held.delete(key);
      this.#gate.releaseKey(group, key);
    }
    this.#inner.done(key);
  }

  add(key: string): void {
    this.#inner.add(key);
  }

  forget(key: string): void {
    this.#inner.forget(key);
  }

  addRateLimited(key: string): void {
    this.#inner.addRateLimited(key);
  }

  addAfter(key: string, delayMs: number): void {
    this.#inner.addAfter(key, delayMs);
  }

  numRequeues(key: string): number {
    return this.#inner.numRequeues(key);
  }

  shutDown(): void {
    this.#inner.shutDown();
  }
}

/**
 * The context a cloud call is charged in: its priority lane and the controller that makes it, carried through
 * asynchronous work by one AsyncLocalStorage. The app's fenced provider proxy and `CloudCallGuard` read it
 * when they draw from the process' cloud budget (docs/cloud-call-guard.md).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The priority lane a cloud call is charged to in the process-wide cloud budget, highest first:
 * - `'user'`: work a user waits for — a new Node's initialization, a new or changed LoadBalancer Service, a
 *   deletion;
 * - `'hosts'`: load-balancer host updates after Node changes;
 * - `'periodic'`: periodic passes — Node status refresh, the lifecycle monitor, route reconcile, resyncs,
 *   collectors of orphaned resources.
 *
 * ccm-kit's own concept (upstream k8s.io/cloud-provider has no cloud-call budget); see docs/cloud-call-guard.md.
 */
export type CloudLane = 'user' | 'hosts' | 'periodic';

/** Every lane, highest priority first. */
export const CLOUD_LANES: readonly CloudLane[] = ['user', 'hosts', 'periodic'];

/** What the context carries; the budget's own parts (`prepaid`, `reconcile`) stay inside the runtime. */
export interface CallContext {
  lane?: CloudLane;
  controller?: string;
  /** A facet call's token, not yet used by a request of the provider's guard (see the budget). */
  prepaid?: { used: boolean };
  /** The reconcile of one workqueue key: the throttle answers its cloud calls met. */
  reconcile?: { throttles: { err: unknown; delayMs: number; lane: CloudLane }[] };
}

const storage = new AsyncLocalStorage<CallContext>();

/** Runs `fn` with `patch` merged onto the current context. */
export function runInCallContext<T>(patch: CallContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...patch }, fn);
}

/** The current context, if any. */
export function callContext(): CallContext | undefined {
  return storage.getStore();
}

/**
 * Runs `fn` with `lane` as the current cloud lane: every cloud call made inside it, synchronously or in any
 * asynchronous continuation it starts, is charged to that lane. A nested call replaces the lane for its own
 * extent. Returns what `fn` returns (a promise stays a promise); throws what `fn` throws.
 */
export function withCloudLane<T>(lane: CloudLane, fn: () => T): T {
  return runInCallContext({ lane }, fn);
}

/**
 * The lane set by the innermost enclosing {@link withCloudLane}, or `undefined` outside any. The budget
 * charges a call with no lane to `'user'`, so work nobody classified is never starved.
 */
export function currentCloudLane(): CloudLane | undefined {
  return storage.getStore()?.lane;
}

/**
 * Runs `fn` as controller `name` (the controller-manager name, for example `service-lb-controller`): cloud
 * calls made inside are counted for it in the budget's metrics. The manager wraps each controller's start in
 * it, so its workers and timers inherit the name.
 */
export function withCloudController<T>(name: string, fn: () => T): T {
  return runInCallContext({ controller: name }, fn);
}

/** The controller set by the innermost enclosing {@link withCloudController}, or `undefined`. */
export function currentCloudController(): string | undefined {
  return storage.getStore()?.controller;
}

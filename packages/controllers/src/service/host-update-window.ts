/**
 * The host-update window of the service controller: Node changes that arrive within `windowMs` of the first
 * one are merged into one node sync, so a burst of joining Nodes costs one `UpdateLoadBalancer` per balancer
 * instead of one per sync that happened to start between two of them (docs/decisions/0206-host-update-window.md).
 *
 * Upstream `controllers/service/controller.go` queues a node sync at once for every change; a window of 0 does
 * the same. The window never adds a sync: it only delays the one a change queues, and every change that arrives
 * meanwhile joins it.
 */

/** The default window in ms, chosen by measurement (W3's burst, the table in decision 0206). */
export const DEFAULT_HOST_UPDATE_WINDOW_MS = 100;

/**
 * Calls `enqueue` at most once per window: the first {@link HostUpdateWindow.notify} starts a timer of
 * `windowMs` and later notifications until it fires are absorbed. With `windowMs` 0 every notification
 * calls `enqueue` at once. Timers are `setTimeout` (unref'd), so vitest's fake timers drive it.
 */
export class HostUpdateWindow {
  readonly #windowMs: number;
  readonly #enqueue: () => void;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  /**
   * @param windowMs - the window in ms (≥ 0, finite).
   * @param enqueue - queues the node sync (the `node` queue's single key).
   * @throws RangeError `hostUpdateWindowMs must be a finite number of ms ≥ 0` otherwise.
   */
  constructor(windowMs: number, enqueue: () => void) {
    if (!(Number.isFinite(windowMs) && windowMs >= 0)) {
      throw new RangeError(`hostUpdateWindowMs must be a finite number of ms ≥ 0, got ${windowMs}`);
    }
    this.#windowMs = windowMs;
    this.#enqueue = enqueue;
  }

  /** The window in ms. */
  get windowMs(): number {
    return this.#windowMs;
  }

  /** True while a window is open (a node sync is due when it closes). */
  get pending(): boolean {
    return this.#timer !== undefined;
  }

  /** A Node change that matters to the load balancers happened. Ignored after {@link HostUpdateWindow.stop}. */
  notify(): void {
    if (this.#stopped) return;
    if (this.#windowMs === 0) {
      this.#enqueue();
      return;
    }
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#enqueue();
    }, this.#windowMs);
    this.#timer.unref?.();
  }

  /** Queues the node sync now, closing an open window (the informers' initial list needs no waiting). */
  flush(): void {
    if (this.#stopped) return;
    this.#clear();
    this.#enqueue();
  }

  /** Drops an open window; later notifications are ignored (the controller is stopping). */
  stop(): void {
    this.#stopped = true;
    this.#clear();
  }

  #clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

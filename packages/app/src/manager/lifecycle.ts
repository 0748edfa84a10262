/**
 * The manager's lifecycle: a stop request latched from the moment `startCloudControllerManager` is called (a
 * SIGTERM during a slow provider factory must not be lost), the channel fatal errors travel on (controller init
 * errors, lost leases; silent once stopping), and `stop()`/`done` of a started manager.
 */
import type { Logger } from '@ccm-kit/runtime';
import type { ElectionRun } from './election.js';
import { LeaderElectionLostError } from './leader-election-lost.js';
import { wasLogged } from './logged-errors.js';
import { type ManagerParts, stopManager } from './shutdown.js';

/** Aborts when `outer` aborts or {@link StopLatch.request} is called; either may happen before the manager runs. */
export class StopLatch {
  readonly #controller = new AbortController();

  constructor(outer?: AbortSignal) {
    if (outer?.aborted) this.request();
    else outer?.addEventListener('abort', () => this.request(), { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  request(): void {
    this.#controller.abort();
  }
}

/** The first fatal error, as a promise that rejects with it. */
export class FatalErrors {
  readonly rejected: Promise<never>;
  #reject!: (err: unknown) => void;
  #stopping = false;

  constructor(private readonly logger: Logger) {
    this.rejected = new Promise<never>((_, reject) => {
      this.#reject = reject;
    });
    this.rejected.catch(() => {});
  }

  /** True once the manager is stopping. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** From now on, errors are expected (controllers and leases end) and ignored. */
  stopped(): void {
    this.#stopping = true;
  }

  /**
   * Reports a fatal error: logged (unless already logged where it arose, see `logged-errors.ts`), and `rejected`
   * rejects with the first one. Ignored once stopping. A lost lease
   * is logged as upstream's `OnStoppedLeading` does: `klog.ErrorS(nil, "leaderelection lost")`.
   */
  readonly fail = (err: unknown): void => {
    if (this.#stopping) return;
    if (err instanceof LeaderElectionLostError) this.logger.error(null, err.message);
    else if (!wasLogged(err)) this.logger.error(err, 'fatal error');
    this.#reject(err);
  };
}

/**
 * How long `done` waits for the stop procedure after a lost lease before rejecting, in ms. Upstream exits at once
 * (`klog.FlushAndExit`); the controllers' signal has aborted by then, and the stop goes on in the background for
 * an in-process caller (`stop()` still awaits all of it).
 */
export const LOST_LEASE_STOP_BOUND_MS = 1_000;

/** What {@link manageLifecycle} needs. */
export interface LifecycleOptions {
  latch: StopLatch;
  /** The caller's stop signal (`StartOptions.signal`). */
  outer: AbortSignal | undefined;
  fatal: FatalErrors;
  /** The election, or undefined when a stop came during start-up and none was started. */
  election: ElectionRun | undefined;
  parts: ManagerParts;
  logger: Logger;
}

/**
 * `stop()` (idempotent: the ordered stop procedure once) and `done` (resolves after a clean stop; after a fatal
 * error, stops and rejects with it) of a started manager. A stop latched during start-up runs at once.
 */
export function manageLifecycle(o: LifecycleOptions): { stop: () => Promise<void>; done: Promise<void> } {
  const { election, fatal, logger } = o;
  let stopped: Promise<void> | undefined;
  let leaseLost = false;
  const stop = () =>
    (stopped ??= (async () => {
      fatal.stopped();
      logger.info('Stopping cloud-controller-manager');
      const stopControllers = () => o.latch.request();
      const controllersDone = () => Promise.all([election?.done, election?.termsDone()]);
      // After a lost lease, queued events are not flushed: another replica leads.
      const eventFlush = leaseLost ? { eventFlushTimeoutMs: 0 } : {};
      await stopManager({ ...o.parts, ...eventFlush, stopControllers, controllersDone }, logger);
      logger.info('Stopped cloud-controller-manager');
    })());
  if (o.latch.signal.aborted) void stop();
  else o.outer?.addEventListener('abort', () => void stop(), { once: true });

  const done = (async () => {
    try {
      await Promise.race([fatal.rejected, election?.done]);
      if (!fatal.stopping) await fatal.rejected; // the election ended by itself: wait for stop or a fatal error
    } catch (err) {
      if (err instanceof LeaderElectionLostError) {
        leaseLost = true;
        await boundedWait(stop(), LOST_LEASE_STOP_BOUND_MS);
      } else {
        await stop();
      }
      throw err;
    }
    await stop();
  })();
  // Callers that never await `done` must not see an unhandled rejection; awaiting it still rejects.
  done.catch(() => {});
  return { stop, done };
}

function boundedWait(p: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise((r) => (timer = setTimeout(r, ms)))]).finally(() => clearTimeout(timer));
}

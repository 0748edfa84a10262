/**
 * Two small pieces of the manager's lifecycle: a stop request latched from the moment `startCloudControllerManager`
 * is called (a SIGTERM during a slow provider factory must not be lost), and the channel fatal errors travel
 * on (controller init errors, lost leases), silent once the manager is stopping.
 */
import type { Logger } from '@ccm-kit/runtime';

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

  /** Reports a fatal error: logged, and `rejected` rejects with the first one. Ignored once stopping. */
  readonly fail = (err: unknown): void => {
    if (this.#stopping) return;
    this.logger.error(err, 'fatal error');
    this.#reject(err);
  };
}

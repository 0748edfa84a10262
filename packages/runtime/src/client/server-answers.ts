/**
 * Knowing when the API server is back. The transport reports every response and every request that got
 * none. A reflector that lost the server waits on {@link ServerAnswers.waitForServer}: that starts a probe
 * (`GET /readyz`, readable by any user through the `system:public-info-viewer` role) every
 * `probeIntervalMs`, and ends the wait early when the server, after a request or probe got no response,
 * answers healthy again (a status below 500). So caches resync within about a second of the server's
 * recovery, not after a backoff of up to 30 s, while a server that stays reachable (a watch reset by a
 * proxy) does not cut the backoff short (decision 0032).
 *
 * A restarted kube-apiserver answers before it is ready to serve: for a few seconds its authorizer has not synced
 * and it refuses requests with 403 (or 401, 429, 5xx). Those answers end the wait above, and the request that
 * follows fails with them; {@link ServerAnswers.retryDelayMs} keeps the retries after such a failure short for
 * {@link RECOVERY_WINDOW_MS} after the server came back, instead of a backoff that grew during the outage.
 */

import { setTimeout as sleep } from 'node:timers/promises';

/** Sends the probe; resolves with the HTTP status, rejects when there is no response. */
export type ServerProbe = (signal: AbortSignal) => Promise<number>;

/** How long after the server came back a failed request is retried quickly (ms). */
export const RECOVERY_WINDOW_MS = 15_000;
/** The longest retry delay in that window (ms). */
export const RECOVERY_RETRY_MS = 1_000;

/** Whether the API server answers; see the module notes. */
export class ServerAnswers {
  readonly #probe: ServerProbe;
  readonly #intervalMs: number;
  readonly #waiters = new Set<() => void>();
  readonly #closed = new AbortController();
  #probing = false;
  /** True after a request or probe got no response, until a healthy answer. */
  #down = false;
  /** `performance.now()` of the last healthy answer after the server was unreachable. */
  #backAt = -Infinity;

  constructor(probe: ServerProbe, probeIntervalMs = 1000) {
    this.#probe = probe;
    this.#intervalMs = probeIntervalMs;
  }

  /** The server answered with `status`: the first healthy answer (< 500) after it was unreachable wakes every waiter. */
  answered(status: number): void {
    if (status >= 500 || !this.#down) return;
    this.#down = false;
    this.#backAt = performance.now();
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const w of waiters) w();
  }

  /**
   * The delay before retrying a request that failed with an answer from the server: `ms` (a backoff), or at
   * most {@link RECOVERY_RETRY_MS} within {@link RECOVERY_WINDOW_MS} after the server came back.
   */
  retryDelayMs(ms: number): number {
    return performance.now() - this.#backAt < RECOVERY_WINDOW_MS ? Math.min(ms, RECOVERY_RETRY_MS) : ms;
  }

  /** A request got no response. */
  unreachable(): void {
    this.#down = true;
  }

  /**
   * Resolves after `ms`, when the server answers healthy after being unreachable, or when `signal` aborts,
   * whichever is first; probes the server meanwhile.
   */
  waitForServer(ms: number, signal: AbortSignal): Promise<void> {
    const waited = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
      if (signal.aborted) done();
    });
    if (!this.#probing && !this.#closed.signal.aborted && this.#waiters.size > 0) {
      this.#probing = true;
      void this.#probeLoop();
    }
    return waited;
  }

  /** Stops probing. */
  close(): void {
    this.#closed.abort();
  }

  async #probeLoop(): Promise<void> {
    const closed = this.#closed.signal;
    try {
      while (!closed.aborted && this.#waiters.size > 0) {
        await sleep(this.#intervalMs, undefined, { signal: closed, ref: false }).catch(() => undefined);
        if (closed.aborted || this.#waiters.size === 0) return;
        try {
          // The transport reports the probe's answer (and wakes the waiters) itself.
          if ((await this.#probe(AbortSignal.any([closed, AbortSignal.timeout(5_000)]))) < 500 && !this.#down) return;
        } catch {
          // still unreachable
        }
      }
    } finally {
      this.#probing = false;
    }
  }
}

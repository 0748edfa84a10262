/**
 * The lease fence checked where it cannot be outrun: inside the undici dispatcher, at the moment a request is
 * written to its connection (docs/decisions/0050-lease-fencing.md). A check before `fetch` is not enough: a
 * request that passed it can wait in the dispatcher (for a free connection, for a connect while the server
 * restarts, or simply because the process was paused between the check and the write) and would be sent late,
 * after another replica took the lease. undici calls a handler's `onRequestStart` just before it writes the
 * request (HTTP/1.1 and HTTP/2, `lib/dispatcher/client-h1.js writeH1` / `client-h2.js writeH2`); aborting there
 * writes nothing.
 */
import type { Dispatcher } from 'undici';
import { LeaseFencedError, type LeaseFence, processLeaseFence } from './fence.js';

/** What a request looks like to a send-time check: its method and full URL. */
export type SendCheck = (method: string, url: URL) => void;

/** Passes every callback to `inner`, and runs `check` first in `onRequestStart`. */
class CheckAtSendHandler implements Dispatcher.DispatchHandler {
  readonly #inner: Dispatcher.DispatchHandler;
  readonly #check: () => void;
  constructor(inner: Dispatcher.DispatchHandler, check: () => void) {
    this.#inner = inner;
    this.#check = check;
  }
  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    try {
      this.#check();
    } catch (err) {
      // Aborting here makes undici drop the request before writing a byte; the caller sees `err`
      // (undici's fetch as the `cause` of its `TypeError: fetch failed`).
      controller.abort(err as Error);
      return;
    }
    this.#inner.onRequestStart?.(controller, context);
  }
  onRequestUpgrade(...a: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.#inner.onRequestUpgrade?.(...a);
  }
  onResponseStart(...a: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.#inner.onResponseStart?.(...a);
  }
  onResponseData(...a: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseData']>>): void {
    this.#inner.onResponseData?.(...a);
  }
  onResponseEnd(...a: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.#inner.onResponseEnd?.(...a);
  }
  onResponseError(...a: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseError']>>): void {
    this.#inner.onResponseError?.(...a);
  }
  onResponseStarted(): void {
    this.#inner.onResponseStarted?.();
  }
  onBodySent(chunk: Buffer): void {
    this.#inner.onBodySent?.(chunk);
  }
  onRequestSent(): void {
    this.#inner.onRequestSent?.();
  }
}

/**
 * An undici interceptor (for `dispatcher.compose(...)`) that runs `check(method, url)` just before each request
 * is written to its connection; when it throws, the request is aborted with that error and nothing is sent.
 * `check()` returning undefined skips the check for all requests (no cost while nothing is installed).
 */
export function checkAtSendInterceptor(check: () => SendCheck | undefined): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    if (!check()) return dispatch(opts, handler);
    const url = new URL(opts.path, opts.origin);
    return dispatch(opts, new CheckAtSendHandler(handler, () => check()?.(opts.method, url)));
  };
}

/** Options of {@link leaseFenceInterceptor}. */
export interface LeaseFenceInterceptorOptions {
  /** The fence to check; default the process' lease fence (installed by the manager with `--leader-elect`). */
  fence?: () => LeaseFence | undefined;
  /** Requests that pass while fenced (default none: every cloud request, reads included, is refused). */
  exempt?: (method: string, url: URL) => boolean;
}

/**
 * An undici interceptor for a provider's own HTTP client: every request is refused with
 * {@link LeaseFencedError} (action `cloud request <METHOD> <path>`) when, at the moment it would be written to
 * its connection, the lease fence is closed — also a request that was already queued in the dispatcher (waiting
 * for a connection) when the process was paused. Compose it onto the provider's undici dispatcher:
 * `new Agent().compose(leaseFenceInterceptor())`, and send with undici's `fetch`/`request` (Node's global
 * `fetch` bundles another undici and cannot use it). `CloudCallGuard` hands out such a dispatcher as
 * `ctx.dispatcher`. Without leader election (no fence installed) nothing is refused.
 */
export function leaseFenceInterceptor(
  options: LeaseFenceInterceptorOptions = {},
): Dispatcher.DispatcherComposeInterceptor {
  const fence = options.fence ?? processLeaseFence;
  const { exempt } = options;
  return checkAtSendInterceptor(() =>
    fence()
      ? (method, url) => {
          if (exempt?.(method, url)) return;
          const f = fence();
          if (f?.isFenced()) throw new LeaseFencedError(`cloud request ${method} ${url.pathname}`, f.describe());
        }
      : undefined,
  );
}

/** The {@link LeaseFencedError} in `err` or its `cause` chain (undici's fetch wraps it in `fetch failed`). */
export function leaseFencedCause(err: unknown): LeaseFencedError | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (e instanceof Error && e.name === 'LeaseFencedError') return e as LeaseFencedError;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The one signal that cancels a request: the caller's signal and the request timeout, with one timer and a
 * plain listener instead of `AbortSignal.timeout` + `AbortSignal.any` (which cost a timer object and weak
 * references per request). {@link RequestAbort.until} keeps it armed until
 * the response body closes, so the timeout covers the body as before.
 */
import type { Readable } from 'node:stream';

/** The reason a timed-out request is aborted with: the `DOMException` that `AbortSignal.timeout` uses. */
function timeoutReason(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

/** What {@link RequestAbort.destroyOnAbort} ends: an HTTP/2 stream. */
interface Destroyable {
  destroy(err?: Error): void;
  once(event: 'close', fn: () => void): unknown;
}

export class RequestAbort {
  /** The caller's signal as given. */
  readonly #callerSignal: AbortSignal | undefined;
  /** Whether this has a timer (else the caller's signal is used as is). */
  readonly #timed: boolean;
  /** Made on first read of {@link signal}: a request that never reads it (HTTP/2) allocates none. */
  #ac: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  /** The caller's signal while this listens to it. */
  #caller: AbortSignal | undefined;
  #timer: NodeJS.Timeout | undefined;
  #target: Destroyable | undefined;
  readonly #onAbort: () => void = () => undefined;

  /** @param timeoutMs the request timeout in milliseconds; 0 for none (then the caller's signal is used as is). */
  constructor(caller: AbortSignal | undefined, timeoutMs: number) {
    this.#callerSignal = caller;
    this.#timed = timeoutMs > 0;
    if (!this.#timed) return;
    if (caller?.aborted) {
      this.#fire(caller.reason);
      return;
    }
    if (caller) {
      this.#onAbort = () => this.#fire(caller.reason);
      caller.addEventListener('abort', this.#onAbort, { once: true });
      this.#caller = caller;
    }
    this.#timer = setTimeout(() => this.#fire(timeoutReason()), timeoutMs);
    this.#timer.unref();
  }

  /** The signal that aborts with the caller's or on timeout; undefined when nothing can cancel the request. */
  get signal(): AbortSignal | undefined {
    if (!this.#timed) return this.#callerSignal;
    if (!this.#ac) {
      this.#ac = new AbortController();
      if (this.#aborted) this.#ac.abort(this.#reason);
    }
    return this.#ac.signal;
  }

  /** Whether the request was cancelled or timed out. */
  get aborted(): boolean {
    return this.#timed ? this.#aborted : this.#callerSignal?.aborted === true;
  }

  /** Why it was aborted: the caller's reason, or a `TimeoutError` `DOMException`. */
  get reason(): unknown {
    return this.#timed ? this.#reason : this.#callerSignal?.reason;
  }

  /** Destroys `target` with the abort reason if this aborts before `target` closes (without a listener of its own). */
  destroyOnAbort(target: Destroyable): void {
    if (this.aborted) {
      target.destroy(this.reason as Error);
      return;
    }
    if (this.#timed) {
      this.#target = target;
      return;
    }
    const s = this.#callerSignal;
    if (!s) return;
    const onAbort = () => target.destroy(s.reason as Error);
    s.addEventListener('abort', onAbort, { once: true });
    target.once('close', () => s.removeEventListener('abort', onAbort));
  }

  /** Keeps the timer and listener until `body` closes (read to its end, cancelled or destroyed). */
  until(body: Readable): void {
    if (this.#timer === undefined && this.#caller === undefined) return;
    if (body.closed || body.destroyed) this.done();
    else body.once('close', () => this.done());
  }

  /** Clears the timer and the listener. */
  done(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#caller?.removeEventListener('abort', this.#onAbort);
    this.#caller = undefined;
    this.#target = undefined;
  }

  #fire(reason: unknown): void {
    const target = this.#target;
    this.done();
    this.#aborted = true;
    this.#reason = reason;
    this.#ac?.abort(reason);
    target?.destroy(reason as Error);
  }
}

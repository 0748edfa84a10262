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

export class RequestAbort {
  /** Undefined when nothing can cancel the request. */
  readonly signal: AbortSignal | undefined;
  /** The caller's signal while this listens to it. */
  #caller: AbortSignal | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #onAbort: () => void = () => undefined;

  /** @param timeoutMs the request timeout in milliseconds; 0 for none (then the caller's signal is used as is). */
  constructor(caller: AbortSignal | undefined, timeoutMs: number) {
    if (timeoutMs <= 0) {
      this.signal = caller;
      return;
    }
    const ac = new AbortController();
    this.signal = ac.signal;
    if (caller?.aborted) {
      ac.abort(caller.reason);
      return;
    }
    if (caller) {
      this.#onAbort = () => {
        this.done();
        ac.abort(caller.reason);
      };
      caller.addEventListener('abort', this.#onAbort, { once: true });
      this.#caller = caller;
    }
    this.#timer = setTimeout(() => {
      this.done();
      ac.abort(timeoutReason());
    }, timeoutMs);
    this.#timer.unref();
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
  }
}

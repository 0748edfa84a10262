/**
 * Abortable waiting helpers used by the fake cloud. Every rejection caused by an abort carries the
 * signal's `reason` unchanged (a `DOMException` named `AbortError` unless the caller gave one).
 */
import { untilAborted } from '@ccm-kit/runtime/wait';

const noop = (): void => {};

/**
 * Resolves after `ms` milliseconds, or rejects with `signal.reason` as soon as `signal` aborts
 * (immediately when it already has). `ms <= 0` resolves without a timer.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (!(ms > 0)) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal` aborts. The abandoned
 * promise keeps running; its eventual rejection is observed so it is never reported as unhandled.
 */
export function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  return untilAborted(promise, signal);
}

/**
 * Runs async sections one at a time, in the order they were queued (the fake's stand-in for the
 * mutexes upstream holds while a callback runs). A section whose caller aborted before its turn is
 * skipped; a caller that aborts during its section is released at once while the section finishes
 * and only then lets the next one start.
 */
export class SerialLock {
  #tail: Promise<void> = Promise.resolve();

  /** Queues `section`; resolves or rejects with its result, or with `signal.reason` on abort. */
  run<T>(section: () => T | Promise<T>, signal?: AbortSignal): Promise<T> {
    const result = this.#tail.then(() => {
      signal?.throwIfAborted();
      return section();
    });
    this.#tail = result.then(noop, noop);
    return abortable(result, signal);
  }
}

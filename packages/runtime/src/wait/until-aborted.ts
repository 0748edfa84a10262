/**
 * Stop waiting for a promise when a signal aborts.
 */

/**
 * Resolves once `signal` aborts (at once when it already has); never rejects. For a loop or a controller that
 * has nothing left to await but its stop.
 */
export function whenAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Settles with `promise`, or rejects with the abort reason as soon as `signal` aborts (at once when it already
 * has), even if the work behind `promise` ignores the signal. That work keeps running; its eventual rejection is
 * observed, so it is never reported as unhandled. Without a signal, returns `promise` itself.
 */
export function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  promise.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}

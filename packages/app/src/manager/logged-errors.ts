/**
 * Errors already logged where they arose (a controller's start error, as `Error starting "<name>"`): the fatal
 * error channel ({@link FatalErrors} in `lifecycle.ts`) ends the manager with them without logging them again.
 */
const logged = new WeakSet<object>();

/** Records that `err` has been logged. */
export function markLogged(err: unknown): void {
  if (typeof err === 'object' && err !== null) logged.add(err);
}

/** True when `err` was passed to {@link markLogged}. */
export function wasLogged(err: unknown): boolean {
  return typeof err === 'object' && err !== null && logged.has(err);
}

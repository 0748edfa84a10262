/**
 * Last-resort cleanup: a test process that exits (normally, by `process.exit`, by an uncaught
 * exception) or is interrupted by SIGINT/SIGTERM/SIGHUP while a control plane runs must not leave
 * etcd and kube-apiserver behind. They run in their own process groups, so a Ctrl-C in the terminal
 * does not reach them.
 *
 * The signal handlers are installed only while something is tracked. After cleaning up they remove
 * themselves and, when no other listener handles the signal, re-raise it so the process ends with the
 * usual signal status.
 */

/** Something that can be torn down synchronously. */
export interface SyncKillable {
  killNowSync(): void;
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const tracked = new Set<SyncKillable>();
let exitHookInstalled = false;

function killAll(): void {
  for (const t of [...tracked]) {
    try {
      t.killNowSync();
    } catch {
      // Keep going: the other control planes must still be cleaned up.
    }
  }
  tracked.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  killAll();
  removeSignalHandlers();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

const handlers = new Map<NodeJS.Signals, () => void>(SIGNALS.map((s) => [s, () => onSignal(s)]));

function removeSignalHandlers(): void {
  for (const [s, h] of handlers) process.removeListener(s, h);
}

/** Registers `t` for cleanup at process exit or on a terminating signal. */
export function trackForExit(t: SyncKillable): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', killAll);
  }
  if (tracked.size === 0) for (const [s, h] of handlers) process.on(s, h);
  tracked.add(t);
}

/** Unregisters `t` (after a normal stop). */
export function untrackForExit(t: SyncKillable): void {
  tracked.delete(t);
  if (tracked.size === 0) removeSignalHandlers();
}

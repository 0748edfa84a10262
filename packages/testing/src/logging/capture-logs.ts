/**
 * Capturing the runtime's log lines (klog text or JSON, as `@ccm-kit/runtime` writes them) in a test, through
 * its `setLogWriter` hook.
 */
import { setLogWriter } from '@ccm-kit/runtime';

/** Captured log lines and the way back to the default writer. */
export interface CapturedLogs {
  /** Every line written since the capture started (or since the array was last emptied). */
  readonly lines: string[];
  /** Sends lines to stderr again (the runtime's default writer). */
  restore(): void;
}

/**
 * Sends every log line to {@link CapturedLogs.lines} until `restore()`. The writer is process-wide: restore it
 * in a `finally` (or use `useLogCapture` from `@ccm-kit/testing/vitest`).
 */
export function captureLogs(): CapturedLogs {
  const lines: string[] = [];
  setLogWriter((line) => lines.push(line));
  return { lines, restore: restoreLogWriter };
}

/** Sends log lines to stderr, the runtime's default writer. */
export function restoreLogWriter(): void {
  setLogWriter((line) => process.stderr.write(`${line}\n`));
}

/** vitest hooks around {@link captureLogs}: every test of the suite starts with an empty capture. */
import { setLogWriter } from '@ccm-kit/runtime';
import { afterEach, beforeEach } from 'vitest';
import { restoreLogWriter } from './capture-logs.js';

/**
 * Registers `beforeEach` (capture into the returned array, emptied first) and `afterEach` (back to stderr).
 * @returns the array of the current test's log lines (the same array for every test).
 */
export function useLogCapture(): string[] {
  const lines: string[] = [];
  beforeEach(() => {
    lines.length = 0;
    setLogWriter((line) => lines.push(line));
  });
  afterEach(() => {
    restoreLogWriter();
  });
  return lines;
}

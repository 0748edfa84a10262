/** The runtime tests' timed wait, on the test kit's eventuallyValue. */
import { eventuallyValue } from '@ccm-kit/testing/vitest';

/**
 * Polls `cond` every `intervalMs` until it returns true; resolves with the time it took (ms), which some
 * tests report or compare. Throws naming `what` after `timeoutMs`.
 */
export async function until(
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'the condition',
  intervalMs = 5,
): Promise<number> {
  const t0 = performance.now();
  await eventuallyValue(cond, { timeoutMs, what, intervalMs });
  return performance.now() - t0;
}

/**
 * `waitForCacheSync(signal, ...informers)` (client-go `cache.WaitForCacheSync`): resolves `true`
 * once every informer has synced, or `false` as soon as `signal` aborts first. Polls every 100 ms,
 * like client-go, so it works with any `Informer` implementation.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Informer } from '@ccm-kit/cloud-provider';

/** Poll interval of {@link waitForCacheSync}, in milliseconds. */
export const cacheSyncPollMs = 100;

/**
 * Resolves `true` once every informer has synced, or `false` when `signal` aborts first; polls every
 * {@link cacheSyncPollMs} ms (client-go `cache.WaitForCacheSync`).
 */
export async function waitForCacheSync(
  signal: AbortSignal,
  ...informers: Array<Pick<Informer<unknown>, 'hasSynced'>>
): Promise<boolean> {
  for (;;) {
    if (signal.aborted) return false;
    if (informers.every((i) => i.hasSynced())) return true;
    try {
      await sleep(cacheSyncPollMs, undefined, { signal });
    } catch {
      return false;
    }
  }
}

/** Re-exports for the informer tests (one import site). */
import type { DeletedFinalStateUnknown } from '@ccm-kit/cloud-provider';

export * from '../src/informers/index.js';
export { metricsRegistry } from '../src/index.js';
export { WatchInactivityError } from '../src/informers/list-watch.js';
export type DeletedFinalStateUnknownLike = DeletedFinalStateUnknown<unknown>;

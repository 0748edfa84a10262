/**
 * `@ccm-kit/runtime/leader-election`: leader election on a Lease and the lease fence a provider's cloud client can use
 * (client-go `tools/leaderelection`). Public API, covered by semver.
 */
export {
  runLeaderElection,
  type LeaderCallbacks,
  type LeaderElectionOptions,
  leaderElectionDefaults,
  LeaderElector,
} from './elector.js';
export { leaderElectionHealthCheck, type LeaderHealthCheck } from './healthz.js';
export { type LeaseClient, LeaseLock } from './lease-lock.js';
export { type LeaderElectionRecord } from './record.js';
export { isLeaseFencedError, leaseFenceSignal, type LeaseFence, LeaseFencedError } from './fence.js';
export { leaseFenceInterceptor, type LeaseFenceInterceptorOptions } from './fence-interceptor.js';

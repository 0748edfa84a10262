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
  leaderElectionHealthCheck,
  type LeaderHealthCheck,
  type LeaseClient,
  LeaseLock,
  type LeaderElectionRecord,
  isLeaseFencedError,
  leaseFenceSignal,
  leaseFenceInterceptor,
  type LeaseFenceInterceptorOptions,
  type LeaseFence,
  LeaseFencedError,
} from '../leader-election/index.js';

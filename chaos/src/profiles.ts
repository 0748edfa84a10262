/** The two chaos profiles: `short` (runs in `npm test`, under 2 minutes) and `long` (release checks). */
export interface Profile {
  name: 'short' | 'long';
  /** CCM processes (leader election on). */
  ccms: number;
  /** Length of the phase with operations and faults, in ms. */
  faultPhaseMs: number;
  /** Operations to run in that phase (at least). */
  operations: number;
  /** Concurrent operation workers. */
  workers: number;
  /** Nodes registered before the phase starts, and at least this many registered in all. */
  initialNodes: number;
  minNodes: number;
  /** Services created before the phase starts, and at least this many created in all. */
  initialServices: number;
  minServices: number;
  cloud: {
    /** Share of cloud API calls answered 503. */
    failureRate: number;
    /** Latency added to every cloud API call, in ms. */
    latencyMs: number;
    /** Bursts of 429 answers with Retry-After. */
    throttleBursts: number;
    /** How long new load balancers stay provisioning (the provider answers RetryError meanwhile), in ms. */
    provisioningDelayMs: number;
  };
  faults: {
    apiServerRestarts: number;
    etcdRestarts: number;
    leaderSigkill: number;
    leaderSigterm: number;
    leaderSigstop: number;
    watchCuts: number;
    /** A served Service force-deleted (finalizer removed) while the leader is stopped (chaos/src/orphans.ts). */
    orphanForceDelete?: number;
    /** A served Service switched to another loadBalancerClass while the leader is stopped. */
    orphanClassChange?: number;
  };
  /** Run service-lb-gc-controller in delete mode with a short grace period (chaos/src/orphans.ts). */
  loadBalancerCollector?: boolean;
  /** Most time allowed for the invariants to hold after faults stop, in ms. */
  settleTimeoutMs: number;
}

export const profiles: Record<Profile['name'], Profile> = {
  short: {
    name: 'short',
    ccms: 2,
    faultPhaseMs: 45_000,
    operations: 120,
    workers: 3,
    initialNodes: 6,
    minNodes: 10,
    initialServices: 10,
    minServices: 25,
    cloud: { failureRate: 0.1, latencyMs: 20, throttleBursts: 1, provisioningDelayMs: 1_500 },
    faults: {
      apiServerRestarts: 1,
      etcdRestarts: 1,
      leaderSigkill: 1,
      leaderSigterm: 1,
      leaderSigstop: 1,
      watchCuts: 1,
    },
    loadBalancerCollector: true,
    settleTimeoutMs: 45_000,
  },
  long: {
    name: 'long',
    ccms: 3,
    faultPhaseMs: 11 * 60_000,
    operations: 1_300,
    workers: 4,
    initialNodes: 20,
    minNodes: 60,
    initialServices: 40,
    minServices: 220,
    cloud: { failureRate: 0.2, latencyMs: 30, throttleBursts: 4, provisioningDelayMs: 2_000 },
    faults: {
      apiServerRestarts: 3,
      etcdRestarts: 1,
      leaderSigkill: 2,
      leaderSigterm: 1,
      leaderSigstop: 2,
      watchCuts: 2,
      orphanForceDelete: 2,
      orphanClassChange: 1,
    },
    loadBalancerCollector: true,
    settleTimeoutMs: 120_000,
  },
};

/** Lease settings of the CCMs (short, so that failover is quick): seconds as Go durations. */
export const leaseFlags = {
  leaseDuration: '6s',
  renewDeadline: '5s',
  retryPeriod: '1s',
} as const;
export const leaseDurationMs = 6_000;

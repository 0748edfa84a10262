/**
 * A health check for leader election (client-go `leaderelection.HealthzAdaptor`): unhealthy when
 * this process leads but has not renewed its lease for longer than the lease duration plus
 * `timeoutMs`. The cloud-controller-manager uses a 20 s timeout.
 */
import type { LeaderElector } from './elector.js';

/** The timeout the cloud-controller-manager passes (`NewLeaderHealthzAdaptor(20 * time.Second)`), in milliseconds. */
export const defaultLeaderHealthTimeoutMs = 20_000;

/** The check's name upstream (`HealthzAdaptor.Name()`), as served at `/healthz/leaderElection`. */
export const leaderElectionHealthCheckName = 'leaderElection';

/** A check for a health registry: returns when healthy, throws an Error saying why when not. */
export type LeaderHealthCheck = () => void;

/**
 * Returns a check for `elector`. When given a getter, the elector may be set later (the check is
 * healthy while it is `undefined`, as client-go's adaptor before `SetLeaderElection`).
 */
export function leaderElectionHealthCheck(
  elector: LeaderElector | (() => LeaderElector | undefined),
  timeoutMs: number = defaultLeaderHealthTimeoutMs,
): LeaderHealthCheck {
  if (!(timeoutMs >= 0)) throw new RangeError(`timeoutMs must be >= 0, got ${timeoutMs}`);
  return () => {
    const le = typeof elector === 'function' ? elector() : elector;
    le?.check(timeoutMs);
  };
}

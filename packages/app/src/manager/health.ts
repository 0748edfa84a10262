/**
 * The manager's health checks (served on /healthz, /livez, /readyz, each instrumented for /metrics/slis):
 * `ping`; `leaderElection` with `--leader-elect` (client-go's lease-renewal check); `controllers-synced`
 * (readiness only: the leader is ready once its informer caches synced, a standby replica is ready at once).
 * Controllers add their own checks while they run.
 */
import { HealthChecks, pingCheck } from '@ccm-kit/runtime/health';
import { type LeaderElector, leaderElectionHealthCheck } from '@ccm-kit/runtime/leader-election';
import { instrumentedCheck } from '../serving/slis.js';

/** The checks, and the switch the leader-elected controllers flip once synced. */
export interface ManagerHealth {
  readonly checks: HealthChecks;
  /** Marks the main controllers' caches as synced (true) or not (false, when leadership ends). */
  setSynced(synced: boolean): void;
}

/** @param elector the main lease's elector once it exists (undefined without `--leader-elect`). */
export function managerHealth(leaderElect: boolean, elector: () => LeaderElector | undefined): ManagerHealth {
  const checks = new HealthChecks({ ping: false });
  let synced = false;
  checks.add('ping', instrumentedCheck('ping', pingCheck));
  if (leaderElect) {
    checks.add('leaderElection', instrumentedCheck('leaderElection', leaderElectionHealthCheck(elector)), [
      'healthz',
      'livez',
    ]);
  }
  const controllersSynced = () => {
    if (leaderElect && !elector()?.isLeader()) return; // a standby replica is ready to take over
    if (!synced) throw new Error('informer caches have not synced');
  };
  checks.add('controllers-synced', instrumentedCheck('controllers-synced', controllersSynced, 'readyz'), ['readyz']);
  return {
    checks,
    setSynced: (v) => {
      synced = v;
    },
  };
}

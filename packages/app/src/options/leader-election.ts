/**
 * `--leader-elect*`. Flags follow k8s.io/component-base `config/options/leaderelectionconfig.go`; validation
 * follows component-base `config/validation.ValidateLeaderElectionConfiguration` together with the checks
 * client-go `leaderelection.NewLeaderElector` makes (lease duration > renew deadline > retry period × 1.2,
 * all > 0). Upstream's CCM meets the latter only once the provider is up (`RunOrDie` exits); ccm-kit checks
 * everything here, before anything starts, naming the flags. Durations are in ms and keep Go's precision
 * (`3.0005s` is 3000.5); the elector rounds them up to whole ms for its timers.
 */
import { formatGoDuration } from '@ccm-kit/runtime';
import { leaderElectionJitterFactor } from '@ccm-kit/runtime/internal';
import { bool, type FlagValues, num, type OptionGroup, str } from './option-group.js';

/** Leader-election settings (`--leader-elect*`). */
export interface LeaderElectionConfig {
  /** `--leader-elect` (default true): run the controllers only while holding the Lease. */
  leaderElect: boolean;
  /**
   * `--leader-elect-lease-duration`, in milliseconds (default 15 s): how long a non-leader waits before taking an
   * unrenewed Lease.
   */
  leaseDurationMs: number;
  /**
   * `--leader-elect-renew-deadline`, in milliseconds (default 10 s): how long the leader keeps retrying a renewal
   * before it gives up leading.
   */
  renewDeadlineMs: number;
  /** `--leader-elect-retry-period`, in milliseconds (default 2 s): the pause between acquire and renew attempts. */
  retryPeriodMs: number;
  /** `--leader-elect-resource-lock`: only `leases` is accepted. */
  resourceLock: string;
  /** `--leader-elect-resource-name` (default `cloud-controller-manager`): the Lease's name. */
  resourceName: string;
  /** `--leader-elect-resource-namespace` (default `kube-system`): the Lease's namespace. */
  resourceNamespace: string;
}

export const leaderElectionOptions: OptionGroup<LeaderElectionConfig> = {
  addFlags(fss) {
    fss
      .flagSet('generic')
      .bool(
        'leader-elect',
        true,
        'Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability.',
      )
      .duration(
        'leader-elect-lease-duration',
        15_000,
        'The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot. This is effectively the maximum duration that a leader can be stopped before it is replaced by another candidate. This is only applicable if leader election is enabled.',
      )
      .duration(
        'leader-elect-renew-deadline',
        10_000,
        'The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration. This is only applicable if leader election is enabled.',
      )
      .duration(
        'leader-elect-retry-period',
        2_000,
        'The duration the clients should wait between attempting acquisition and renewal of a leadership. This is only applicable if leader election is enabled.',
      )
      .string(
        'leader-elect-resource-lock',
        'leases',
        "The type of resource object that is used for locking during leader election. Supported options are 'leases'.",
      )
      .string(
        'leader-elect-resource-name',
        'cloud-controller-manager',
        'The name of resource object that is used for locking during leader election.',
      )
      .string(
        'leader-elect-resource-namespace',
        'kube-system',
        'The namespace of resource object that is used for locking during leader election.',
      );
  },
  validate(v) {
    if (!bool(v, 'leader-elect')) return [];
    const problems: string[] = [];
    if (str(v, 'leader-elect-resource-lock') !== 'leases') {
      problems.push('--leader-elect-resource-lock: resourceLock value must be "leases"');
    }
    for (const flag of ['resource-name', 'resource-namespace']) {
      if (str(v, `leader-elect-${flag}`) === '') problems.push(`--leader-elect-${flag} must not be empty`);
    }
    problems.push(...validateLeaderElectionDurations(v));
    return problems;
  },
  applyTo(v) {
    return {
      leaderElect: bool(v, 'leader-elect'),
      leaseDurationMs: num(v, 'leader-elect-lease-duration'),
      renewDeadlineMs: num(v, 'leader-elect-renew-deadline'),
      retryPeriodMs: num(v, 'leader-elect-retry-period'),
      resourceLock: str(v, 'leader-elect-resource-lock'),
      resourceName: str(v, 'leader-elect-resource-name'),
      resourceNamespace: str(v, 'leader-elect-resource-namespace'),
    };
  },
};

/** Each duration > 0; then lease duration > renew deadline > retry period × jitter factor. */
function validateLeaderElectionDurations(v: FlagValues): string[] {
  const lease = num(v, 'leader-elect-lease-duration');
  const renew = num(v, 'leader-elect-renew-deadline');
  const retry = num(v, 'leader-elect-retry-period');
  const problems: string[] = [];
  for (const [flag, value] of [
    ['lease-duration', lease],
    ['renew-deadline', renew],
    ['retry-period', retry],
  ] as const) {
    if (!(value > 0)) problems.push(`--leader-elect-${flag} must be greater than zero, got ${formatGoDuration(value)}`);
  }
  if (problems.length > 0) return problems;
  if (renew >= lease) problems.push('--leader-elect-renew-deadline must be less than --leader-elect-lease-duration');
  else if (!(renew > leaderElectionJitterFactor * retry)) {
    problems.push(
      `--leader-elect-renew-deadline (${formatGoDuration(renew)}) must be greater than --leader-elect-retry-period × ${leaderElectionJitterFactor} ` +
        `(${formatGoDuration(retry * leaderElectionJitterFactor)}): raise the renew deadline or lower the retry period`,
    );
  }
  return problems;
}

/**
 * The settings of `service-lb-gc-controller` (flags `--lb-gc-mode`, `--lb-gc-grace-period`, `--lb-gc-period`)
 * and their checks. No upstream counterpart (docs/controllers/service-lb-gc-controller.md).
 */

/** `dry-run` reports orphaned load balancers; `delete` also deletes them. */
export type LoadBalancerGCMode = 'dry-run' | 'delete';

/** The modes, in the order the help text lists them. */
export const LOAD_BALANCER_GC_MODES: readonly LoadBalancerGCMode[] = Object.freeze(['dry-run', 'delete']);

/** Settings of the orphaned load-balancer collector. Durations in milliseconds. */
export interface LoadBalancerGCConfig {
  /** `--lb-gc-mode`, default `dry-run`. */
  readonly mode: LoadBalancerGCMode;
  /**
   * `--lb-gc-grace-period`, default 600 000 ms (10 min): a balancer is acted on only when two passes at least
   * this far apart both found it orphaned. 0 still takes two passes.
   */
  readonly gracePeriodMs: number;
  /** `--lb-gc-period`, default 300 000 ms (5 min): time between the starts of two passes. */
  readonly periodMs: number;
}

/** The defaults of {@link LoadBalancerGCConfig}. */
export const defaultLoadBalancerGCConfig: Readonly<LoadBalancerGCConfig> = Object.freeze({
  mode: 'dry-run',
  gracePeriodMs: 10 * 60_000,
  periodMs: 5 * 60_000,
});

/** True when `value` is a {@link LoadBalancerGCMode}. */
function isLoadBalancerGCMode(value: unknown): value is LoadBalancerGCMode {
  return (LOAD_BALANCER_GC_MODES as readonly unknown[]).includes(value);
}

/**
 * The problems of `config`, each naming its flag and the fix; empty when valid.
 */
export function loadBalancerGCConfigProblems(config: LoadBalancerGCConfig): string[] {
  const problems: string[] = [];
  if (!isLoadBalancerGCMode(config.mode)) {
    problems.push(
      `--lb-gc-mode must be one of ${LOAD_BALANCER_GC_MODES.join(', ')}, got ${JSON.stringify(config.mode)}`,
    );
  }
  if (!(Number.isFinite(config.gracePeriodMs) && config.gracePeriodMs >= 0)) {
    problems.push(`--lb-gc-grace-period must not be negative (for example 10m), got ${config.gracePeriodMs} ms`);
  }
  if (!(Number.isFinite(config.periodMs) && config.periodMs > 0)) {
    problems.push(`--lb-gc-period must be greater than zero (for example 5m), got ${config.periodMs} ms`);
  }
  return problems;
}

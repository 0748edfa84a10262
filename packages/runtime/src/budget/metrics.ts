/**
 * Metrics of the process' cloud budget, in the `cloudprovider_` style of upstream's cloud-call metrics
 * (k8s.io/legacy-cloud-providers aws/aws_metrics.go, gce/metrics.go) and of {@link guardMetrics}, registered
 * in {@link metricsRegistry} (the manager's /metrics):
 *
 * - `cloudprovider_api_budget_calls_total{controller, lane}`: calls let through;
 * - `cloudprovider_api_budget_wait_duration_seconds{lane}`: histogram of the time calls waited for a token;
 * - `cloudprovider_api_budget_throttles_total{lane}`: throttle answers (HTTP 429) from the cloud;
 * - `cloudprovider_api_budget_rate`: the rate the budget currently allows, in calls per second (lowered by
 *   throttling, recovering to `--cloud-api-qps`).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { metricsRegistry } from '../metrics/registry.js';

/** The budget's metrics. */
export interface BudgetMetrics {
  calls: Counter<'controller' | 'lane'>;
  waitSeconds: Histogram<'lane'>;
  throttles: Counter<'lane'>;
  rate: Gauge;
}

/** Seconds; from no wait to minutes behind a throttled cloud. */
const BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

function metric<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/** Per registry, what `cloudprovider_api_budget_rate` reads at each scrape. */
const rateSources = new WeakMap<Registry, () => number>();

/**
 * Makes `cloudprovider_api_budget_rate` in `registry` show `rate()` (calls per second) at each scrape, so it
 * follows the recovery after throttling, not only the last throttle. The budget made last in a registry wins.
 */
export function reportBudgetRate(rate: () => number, registry: Registry = metricsRegistry): void {
  rateSources.set(registry, rate);
}

/** The budget metrics in `registry`, created on first use and shared by every budget registered there. */
export function budgetMetrics(registry: Registry = metricsRegistry): BudgetMetrics {
  const p = 'cloudprovider_api_budget';
  return {
    calls: metric(
      registry,
      `${p}_calls_total`,
      () =>
        new Counter({
          name: `${p}_calls_total`,
          help: 'Cloud API calls let through by the cloud budget, by controller and lane.',
          labelNames: ['controller', 'lane'],
          registers: [registry],
        }),
    ),
    waitSeconds: metric(
      registry,
      `${p}_wait_duration_seconds`,
      () =>
        new Histogram({
          name: `${p}_wait_duration_seconds`,
          help: 'Seconds cloud API calls waited in the cloud budget for a token, by lane.',
          labelNames: ['lane'],
          buckets: BUCKETS,
          registers: [registry],
        }),
    ),
    throttles: metric(
      registry,
      `${p}_throttles_total`,
      () =>
        new Counter({
          name: `${p}_throttles_total`,
          help: 'Throttle answers (HTTP 429) from the cloud API seen by the cloud budget, by lane.',
          labelNames: ['lane'],
          registers: [registry],
        }),
    ),
    rate: metric(
      registry,
      `${p}_rate`,
      () =>
        new Gauge({
          name: `${p}_rate`,
          help: 'Cloud API calls per second the cloud budget currently allows.',
          registers: [registry],
          collect() {
            const rate = rateSources.get(registry);
            if (rate) this.set(rate());
          },
        }),
    ),
  };
}

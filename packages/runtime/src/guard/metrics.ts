/**
 * Per-operation metrics of a cloud-call guard, named as upstream providers name theirs
 * (`cloudprovider_aws_api_request_duration_seconds{request}`, `cloudprovider_gce_api_request_errors{request}`,
 * in k8s.io/legacy-cloud-providers aws/aws_metrics.go and gce/metrics.go), registered in {@link metricsRegistry}
 * (served on the manager's /metrics):
 *
 * - `cloudprovider_<provider>_api_request_duration_seconds{request}`: histogram of whole calls, retries
 *   included (its `_count` is the number of calls);
 * - `cloudprovider_<provider>_api_request_errors{request, class}`: calls that failed, by error class;
 * - `cloudprovider_<provider>_api_request_attempts_total{request, result}`: attempts sent, by `ok` or error
 *   class (attempts − calls = retries);
 * - `cloudprovider_<provider>_api_request_cache_hits_total{request}`: calls answered from the TTL cache or by
 *   joining an identical call in flight.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { metricsRegistry } from '../metrics/registry.js';

/** The metrics of one provider's guard. */
export interface GuardMetrics {
  /** `cloudprovider_<provider>_api_request_duration_seconds{request}`: whole calls, retries included, in seconds. */
  duration: Histogram<'request'>;
  /** `cloudprovider_<provider>_api_request_errors{request, class}`: failed calls by error class. */
  errors: Counter<'request' | 'class'>;
  /** `cloudprovider_<provider>_api_request_attempts_total{request, result}`: attempts sent, by `ok` or error class. */
  attempts: Counter<'request' | 'result'>;
  /**
   * `cloudprovider_<provider>_api_request_cache_hits_total{request}`: calls answered from the cache or by a call in
   * flight.
   */
  cacheHits: Counter<'request'>;
}

/** Seconds; from a fast list to a slow provisioning call. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function metric<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/**
 * The metrics of `provider` (a Prometheus name part: letters, digits, `_`), created on first use and shared by
 * every guard of that provider in the registry.
 * @throws Error when `provider` is not a valid metric name part.
 */
export function guardMetrics(provider: string, registry: Registry = metricsRegistry): GuardMetrics {
  if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(provider))
    throw new Error(`guard: provider "${provider}" must be letters, digits and _ (a metric name part)`);
  const p = `cloudprovider_${provider}_api_request`;
  return {
    duration: metric(
      registry,
      `${p}_duration_seconds`,
      () =>
        new Histogram({
          name: `${p}_duration_seconds`,
          help: `Latency of ${provider} cloud API calls in seconds, retries included, by request.`,
          labelNames: ['request'],
          buckets: BUCKETS,
          registers: [registry],
        }),
    ),
    errors: metric(
      registry,
      `${p}_errors`,
      () =>
        new Counter({
          name: `${p}_errors`,
          help: `Failed ${provider} cloud API calls, by request and error class.`,
          labelNames: ['request', 'class'],
          registers: [registry],
        }),
    ),
    attempts: metric(
      registry,
      `${p}_attempts_total`,
      () =>
        new Counter({
          name: `${p}_attempts_total`,
          help: `Attempts sent to the ${provider} cloud API, by request and result (ok or error class).`,
          labelNames: ['request', 'result'],
          registers: [registry],
        }),
    ),
    cacheHits: metric(
      registry,
      `${p}_cache_hits_total`,
      () =>
        new Counter({
          name: `${p}_cache_hits_total`,
          help: `${provider} cloud API calls answered from the cache or by a shared call in flight, by request.`,
          labelNames: ['request'],
          registers: [registry],
        }),
    ),
  };
}

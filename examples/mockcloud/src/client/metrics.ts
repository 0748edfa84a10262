/**
 * Per-operation metrics of the mockcloud client, registered in `@ccm-kit/runtime`'s `metricsRegistry`
 * (served on the manager's /metrics). Created once per process and shared by every client.
 *
 * - `mockcloud_api_requests_total{operation,code}`: attempts, by HTTP status or `network`/`timeout`.
 * - `mockcloud_api_request_duration_seconds{operation}`: attempt latency.
 * - `mockcloud_api_retries_total{operation,reason}`: retries scheduled, by the failure that caused them.
 */
import { metricsRegistry } from '@ccm-kit/runtime';
import { Counter, Histogram } from 'prom-client';

/** The client's metrics. */
export interface ClientMetrics {
  requests: Counter<'operation' | 'code'>;
  duration: Histogram<'operation'>;
  retries: Counter<'operation' | 'reason'>;
}

let metrics: ClientMetrics | undefined;

/** The process-wide client metrics, registered on first use. */
export function clientMetrics(): ClientMetrics {
  if (metrics) return metrics;
  const existing = (name: string) => metricsRegistry.getSingleMetric(name);
  metrics = {
    requests:
      (existing('mockcloud_api_requests_total') as Counter<'operation' | 'code'> | undefined) ??
      new Counter({
        name: 'mockcloud_api_requests_total',
        help: 'Requests sent to the mockcloud API, by operation and HTTP status (or network/timeout).',
        labelNames: ['operation', 'code'],
        registers: [metricsRegistry],
      }),
    duration:
      (existing('mockcloud_api_request_duration_seconds') as Histogram<'operation'> | undefined) ??
      new Histogram({
        name: 'mockcloud_api_request_duration_seconds',
        help: 'Latency of mockcloud API requests in seconds, by operation.',
        labelNames: ['operation'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
        registers: [metricsRegistry],
      }),
    retries:
      (existing('mockcloud_api_retries_total') as Counter<'operation' | 'reason'> | undefined) ??
      new Counter({
        name: 'mockcloud_api_retries_total',
        help: 'Retries of mockcloud API requests, by operation and the failure that caused them.',
        labelNames: ['operation', 'reason'],
        registers: [metricsRegistry],
      }),
  };
  return metrics;
}

/**
 * REST client metrics with client-go's names and labels (k8s.io/client-go/tools/metrics, registered
 * by component-base/metrics/prometheus/restclient), in {@link metricsRegistry}.
 */
import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from '../metrics/registry.js';

const latencyBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

function getOrCreate<T>(name: string, create: () => T): T {
  return (metricsRegistry.getSingleMetric(name) as T | undefined) ?? create();
}

/** `rest_client_requests_total{code,host,method}`: requests by HTTP status (`<error>` when none). */
export const restClientRequestsTotal = getOrCreate(
  'rest_client_requests_total',
  () =>
    new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'host', 'method'] as const,
      registers: [metricsRegistry],
    }),
);

/** `rest_client_request_duration_seconds{verb,host}`: time to response headers. */
export const restClientRequestDuration = getOrCreate(
  'rest_client_request_duration_seconds',
  () =>
    new Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'] as const,
      buckets: latencyBuckets,
      registers: [metricsRegistry],
    }),
);

/** `rest_client_rate_limiter_duration_seconds{verb,host}`: time spent waiting for the client-side limiter. */
export const restClientRateLimiterDuration = getOrCreate(
  'rest_client_rate_limiter_duration_seconds',
  () =>
    new Histogram({
      name: 'rest_client_rate_limiter_duration_seconds',
      help: 'Client side rate limiter latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'] as const,
      buckets: latencyBuckets,
      registers: [metricsRegistry],
    }),
);

/**
 * The service controller's Prometheus metrics (subsystem `service_controller`, stability ALPHA, no labels),
 * registered once in `@ccm-kit/runtime`'s `metricsRegistry`.
 * Follows upstream `controllers/service/metrics.go` (upstream `k8s.io/cloud-provider controllers/service/controller.go`).
 */
import { metricsRegistry } from '@ccm-kit/runtime';
import { Counter, exponentialBuckets, Histogram } from 'prom-client';

/** The four service controller metrics. */
export interface ServiceControllerMetrics {
  /** `service_controller_loadbalancer_sync_total`: `UpdateLoadBalancer` attempts made by node syncs. */
  readonly loadBalancerSyncCount: Counter;
  /** `service_controller_nodesync_error_total`: node-list errors and failed host updates during node syncs. */
  readonly nodeSyncErrorCount: Counter;
  /** `service_controller_nodesync_latency_seconds`: duration of each node sync, in seconds. */
  readonly nodeSyncLatency: Histogram;
  /** `service_controller_update_loadbalancer_host_latency_seconds`: duration of each host update, in seconds. */
  readonly updateLoadBalancerHostLatency: Histogram;
}

let registered: ServiceControllerMetrics | undefined;

/** Buckets 1, 2, 4 … 16384 seconds (exponential, start 1, factor 2, 15 buckets), as upstream. */
const LATENCY_BUCKETS = exponentialBuckets(1, 2, 15);

function counter(name: string, help: string): Counter {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing instanceof Counter) return existing;
  return new Counter({ name, help, registers: [metricsRegistry] });
}

function histogram(name: string, help: string): Histogram {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing instanceof Histogram) return existing;
  return new Histogram({ name, help, buckets: LATENCY_BUCKETS, registers: [metricsRegistry] });
}

/**
 * Registers the metrics on first call (like upstream `registerMetrics`, guarded by `sync.Once`) and returns them;
 * metrics already in the registry under these names are reused.
 */
export function serviceControllerMetrics(): ServiceControllerMetrics {
  registered ??= {
    loadBalancerSyncCount: counter(
      'service_controller_loadbalancer_sync_total',
      '[ALPHA] A metric counting the amount of times any load balancer has been configured, as an effect of service/node changes on the cluster',
    ),
    nodeSyncErrorCount: counter(
      'service_controller_nodesync_error_total',
      '[ALPHA] A metric counting the amount of times any load balancer has been configured and errored, as an effect of node changes on the cluster',
    ),
    nodeSyncLatency: histogram(
      'service_controller_nodesync_latency_seconds',
      '[ALPHA] A metric measuring the latency for nodesync which updates loadbalancer hosts on cluster node updates.',
    ),
    updateLoadBalancerHostLatency: histogram(
      'service_controller_update_loadbalancer_host_latency_seconds',
      '[ALPHA] A metric measuring the latency for updating each load balancer hosts.',
    ),
  };
  return registered;
}

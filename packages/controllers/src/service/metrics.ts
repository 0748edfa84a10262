/**
 * The service controller's Prometheus metrics (subsystem `service_controller`, stability ALPHA, no labels),
 * registered once in `@ccm-kit/runtime`'s `metricsRegistry`.
 * Follows upstream `controllers/service/metrics.go` (reference §3.3, §3.7).
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

/** Registers the metrics on first call (like upstream `registerMetrics`, guarded by `sync.Once`) and returns them. */
export function serviceControllerMetrics(): ServiceControllerMetrics {
  if (registered !== undefined) return registered;
  const registers = [metricsRegistry];
  registered = {
    loadBalancerSyncCount: new Counter({
      name: 'service_controller_loadbalancer_sync_total',
      help: '[ALPHA] A metric counting the amount of times any load balancer has been configured, as an effect of service/node changes on the cluster',
      registers,
    }),
    nodeSyncErrorCount: new Counter({
      name: 'service_controller_nodesync_error_total',
      help: '[ALPHA] A metric counting the amount of times any load balancer has been configured and errored, as an effect of node changes on the cluster',
      registers,
    }),
    nodeSyncLatency: new Histogram({
      name: 'service_controller_nodesync_latency_seconds',
      help: '[ALPHA] A metric measuring the latency for nodesync which updates loadbalancer hosts on cluster node updates.',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    updateLoadBalancerHostLatency: new Histogram({
      name: 'service_controller_update_loadbalancer_host_latency_seconds',
      help: '[ALPHA] A metric measuring the latency for updating each load balancer hosts.',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
  };
  return registered;
}

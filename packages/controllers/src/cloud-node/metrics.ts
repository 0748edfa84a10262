/**
 * Cloud-node controller metrics, registered once in the shared ccm-kit registry when this module loads.
 * Follows upstream `controllers/node/metrics.go` (subsystem `node_controller`, stability ALPHA, no labels).
 * Upstream `k8s.io/cloud-provider controllers/node/node_controller.go`.
 */
import { metricsRegistry } from '@ccm-kit/runtime';
import { Histogram } from 'prom-client';

/** Upstream's buckets, in seconds: exponential from 1, factor 4, 6 buckets. */
export const NODE_CONTROLLER_BUCKETS: readonly number[] = Object.freeze([1, 4, 16, 64, 256, 1024]);

function histogram(name: string, help: string): Histogram {
  return (
    (metricsRegistry.getSingleMetric(name) as Histogram | undefined) ??
    new Histogram({ name, help, buckets: [...NODE_CONTROLLER_BUCKETS], registers: [metricsRegistry] })
  );
}

/** `node_controller_cloud_provider_taint_removal_delay_seconds`: seconds from Node creation to the init PUT. */
export const removeCloudProviderTaintDelay: Histogram = histogram(
  'node_controller_cloud_provider_taint_removal_delay_seconds',
  '[ALPHA] Number of seconds after node creation when NodeController removed the cloud-provider taint of a single node.',
);

/** `node_controller_initial_node_sync_delay_seconds`: seconds from Node creation to the end of its initialization. */
export const initialNodeSyncDelay: Histogram = histogram(
  'node_controller_initial_node_sync_delay_seconds',
  '[ALPHA] Number of seconds after node creation when NodeController finished the initial synchronization of a single node.',
);

/**
 * Route controller metrics, registered in the shared ccm-kit registry. Follows upstream
 * `controllers/route/metrics.go`.
 */
import { metricsRegistry } from '@ccm-kit/runtime';
import { Counter } from 'prom-client';

const NAME = 'route_controller_route_sync_total';

/** `route_controller_route_sync_total` (counter, ALPHA, no labels): one increment per reconcile pass. */
export const routeSyncTotal: Counter =
  (metricsRegistry.getSingleMetric(NAME) as Counter | undefined) ??
  new Counter({
    name: NAME,
    help: '[ALPHA] A metric counting the amount of times routes have been synced with the cloud provider.',
    registers: [metricsRegistry],
  });

/**
 * The metrics of `service-lb-gc-controller` (no upstream counterpart), registered once in `@ccm-kit/runtime`'s
 * `metricsRegistry`, in the naming style of the service controller's (`service_controller_*`).
 */
import { metricsRegistry } from '@ccm-kit/runtime';
import { Counter, Gauge } from 'prom-client';

/** The collector's metrics. */
export interface LoadBalancerGCMetrics {
  /**
   * `service_lb_gc_orphaned_load_balancers{state}`: orphaned balancers found by the last complete pass, by
   * state (`service-gone`, `not-wanted`), grace period or not.
   */
  readonly orphaned: Gauge<'state'>;
  /** `service_lb_gc_malformed_records`: balancers of the last complete pass whose record could not be read. */
  readonly malformed: Gauge;
  /** `service_lb_gc_deleted_load_balancers_total`: orphaned balancers deleted (delete mode). */
  readonly deleted: Counter;
  /** `service_lb_gc_failed_passes_total`: passes that decided nothing (listing failed or partial). */
  readonly failedPasses: Counter;
}

let registered: LoadBalancerGCMetrics | undefined;

function existing<T>(name: string, type: abstract new (...a: never[]) => T): T | undefined {
  const m = metricsRegistry.getSingleMetric(name);
  return m instanceof type ? m : undefined;
}

/** Registers the metrics on first call and returns them; metrics already registered under these names are reused. */
export function loadBalancerGCMetrics(): LoadBalancerGCMetrics {
  registered ??= {
    orphaned:
      (existing('service_lb_gc_orphaned_load_balancers', Gauge) as Gauge<'state'> | undefined) ??
      new Gauge({
        name: 'service_lb_gc_orphaned_load_balancers',
        help: 'Orphaned load balancers found by the last complete pass of service-lb-gc-controller, by state.',
        labelNames: ['state'],
        registers: [metricsRegistry],
      }),
    malformed:
      existing('service_lb_gc_malformed_records', Gauge) ??
      new Gauge({
        name: 'service_lb_gc_malformed_records',
        help: 'Load balancers of the last complete pass whose Service record could not be read (never deleted).',
        registers: [metricsRegistry],
      }),
    deleted:
      existing('service_lb_gc_deleted_load_balancers_total', Counter) ??
      new Counter({
        name: 'service_lb_gc_deleted_load_balancers_total',
        help: 'Orphaned load balancers deleted by service-lb-gc-controller.',
        registers: [metricsRegistry],
      }),
    failedPasses:
      existing('service_lb_gc_failed_passes_total', Counter) ??
      new Counter({
        name: 'service_lb_gc_failed_passes_total',
        help: 'Passes of service-lb-gc-controller that decided nothing because the listing failed or was partial.',
        registers: [metricsRegistry],
      }),
  };
  return registered;
}

/**
 * The process-wide Prometheus registry that /metrics serves. Every ccm-kit metric registers here
 * (not in prom-client's global registry) so that tests and embedded managers can create their own.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

/** The default registry served on /metrics by `@ccm-kit/app`. */
export const metricsRegistry = new Registry();

const withProcessMetrics = new WeakSet<Registry>();

/**
 * Registers the process and runtime metrics in `registry` (once per registry; later calls do nothing):
 * the `process_*` metrics every upstream component exposes through client_golang's process collector
 * (`process_cpu_seconds_total`, `process_resident_memory_bytes`, `process_virtual_memory_bytes`,
 * `process_start_time_seconds`, `process_open_fds`, `process_max_fds`; memory and fd metrics on Linux,
 * where `/proc` exists) and Node's own runtime metrics (`nodejs_eventloop_lag_seconds`,
 * `nodejs_heap_size_used_bytes`, `nodejs_gc_duration_seconds`, … — the counterpart of Go's `go_*`).
 * These are prom-client's default metrics, collected when the registry is scraped.
 */
export function collectProcessMetrics(registry: Registry = metricsRegistry): void {
  if (withProcessMetrics.has(registry)) return;
  withProcessMetrics.add(registry);
  collectDefaultMetrics({ register: registry });
}

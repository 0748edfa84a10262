/**
 * Informer metrics (ccm-kit's own; client-go exports none for reflectors by default), in
 * {@link metricsRegistry}. Label `resource` is the collection path, e.g. `/api/v1/nodes`.
 */
import { Counter } from 'prom-client';
import { metricsRegistry } from '../metrics/registry.js';

function getOrCreate<T>(name: string, create: () => T): T {
  return (metricsRegistry.getSingleMetric(name) as T | undefined) ?? create();
}

/** `ccm_kit_informer_handler_errors_total{resource,event}`: handler (or transform) exceptions caught. */
export const informerHandlerErrorsTotal = getOrCreate(
  'ccm_kit_informer_handler_errors_total',
  () =>
    new Counter({
      name: 'ccm_kit_informer_handler_errors_total',
      help: 'Exceptions thrown (or promises rejected) by informer event handlers and transforms, caught and logged.',
      labelNames: ['resource', 'event'] as const,
      registers: [metricsRegistry],
    }),
);

/** `ccm_kit_informer_lists_total{resource}`: full LISTs (initial and relists). */
export const informerListsTotal = getOrCreate(
  'ccm_kit_informer_lists_total',
  () =>
    new Counter({
      name: 'ccm_kit_informer_lists_total',
      help: 'Full LISTs made by informers (the initial list and relists).',
      labelNames: ['resource'] as const,
      registers: [metricsRegistry],
    }),
);

/** `ccm_kit_informer_watch_errors_total{resource,reason}`: watches that ended abnormally. */
export const informerWatchErrorsTotal = getOrCreate(
  'ccm_kit_informer_watch_errors_total',
  () =>
    new Counter({
      name: 'ccm_kit_informer_watch_errors_total',
      help: 'Watches or lists that failed, by reason (expired, inactivity, error, list_error).',
      labelNames: ['resource', 'reason'] as const,
      registers: [metricsRegistry],
    }),
);

/**
 * The process-wide Prometheus registry that /metrics serves. Every ccm-kit metric registers here
 * (not in prom-client's global registry) so that tests and embedded managers can create their own.
 */
import { Registry } from 'prom-client';

/** The default registry served on /metrics by `@ccm-kit/app`. */
export const metricsRegistry = new Registry();

/**
 * `@ccm-kit/runtime`: what a provider's own code uses anywhere — logging (`createLogger`, klog-style), the metrics
 * registry served on `/metrics` and Go durations. Everything else is reached through its topic entry point:
 * `@ccm-kit/runtime/client` (API clients, kubeconfig, API errors), `/informers`, `/workqueue`, `/controller` (the
 * reconcile loop), `/leader-election`, `/guard` (the cloud-call guard), `/budget`, `/events`, `/health`, `/tracing`,
 * `/wait` (apimachinery `util/wait`). Every name here and there is public API, covered by semver; the package README
 * lists them by entry point. Internals for sibling packages and tests live in `@ccm-kit/runtime/internal`.
 */
export {
  createLogger,
  type Logger,
  type VerboseLogger,
  type LogFields,
  setVerbosity,
  getVerbosity,
  setLogFormat,
  type LogFormat,
  setLogStreams,
  type LogStreamOptions,
  setLogWriter,
  flushLogs,
} from './logging.js';
export { metricsRegistry, collectProcessMetrics } from './metrics/registry.js';
// Go durations have one implementation, in cloud-provider (its Service annotations parse them too).
export { parseGoDuration } from '@ccm-kit/cloud-provider';
export { formatGoDuration } from '@ccm-kit/cloud-provider/internal';

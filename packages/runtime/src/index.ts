/**
 * `@ccm-kit/runtime`: what a controller needs around the cloud calls — the client factory and API error
 * helpers, informers and listers, the workqueue and its rate limiters, the reconcile loop (`QueueWorker`,
 * `runWorkers`, `processNextWorkItem`, `parallelizeUntil`), leader election, the event recorder, health
 * checks, the metrics registry, logging and the wait helpers (client-go `tools/cache`, `util/workqueue`,
 * `tools/leaderelection`, `tools/record`, apimachinery `util/wait`). Every name here is public API, covered
 * by semver; the package README lists them by group. Each topic is also an entry point of its own
 * (`@ccm-kit/runtime/informers`, `/workqueue`, `/leader-election`, `/client`, `/events`, `/guard`, `/tracing`,
 * `/budget`, `/controller`, `/health`). Internals for sibling packages and tests live in
 * `@ccm-kit/runtime/internal`.
 */
export * from './topics/client.js';
export * from './topics/budget.js';
export * from './topics/tracing.js';
export * from './topics/controller.js';
export * from './topics/events.js';
export * from './topics/health.js';
export * from './topics/informers.js';
export * from './topics/leader-election.js';
export {
  setVerbosity,
  getVerbosity,
  setLogFormat,
  setLogStreams,
  flushLogs,
  type LogStreamOptions,
  setLogWriter,
  createLogger,
  type LogFields,
  type LogFormat,
  type VerboseLogger,
  type Logger,
} from './logging.js';
export { controllerStarted, controllerStopped } from './metrics/controller-manager.js';
export { metricsRegistry, collectProcessMetrics } from './metrics/registry.js';
export {
  type Clock,
  realClock,
  parseGoDuration,
  formatGoDuration,
  sleep,
  jitterUntil,
  until,
  nonSlidingUntil,
  pollUntil,
  type LoopFunc,
  type JitterUntilOptions,
  type PollOptions,
  WaitTimeoutError,
  untilAborted,
} from './util/index.js';
export * from './topics/workqueue.js';
export * from './topics/guard.js';

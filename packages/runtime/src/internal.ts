/**
 * `@ccm-kit/runtime/internal`: names that sibling ccm-kit packages and this package's tests share but that
 * are NOT public API. Not covered by semver: anything here may change or disappear in any release. Vendors
 * import from `@ccm-kit/runtime` only.
 */
export { parseTime } from './client/time.js';
export { clientNode, loadClientNode } from './client/client-node-parts.js';
export { asClientNodeKubeConfig } from './client/lean-kubeconfig.js';
export {
  isRawApiClient,
  rawApiClient,
  cachedApiClient,
  discardResponse,
  type ApiClientSource,
  RawApi,
  type RawApiConfig,
} from './client/raw-api.js';
export { ServerAnswers, type ServerProbe } from './client/server-answers.js';
export { clientFactoryTransport, clientFactoryRawConfig } from './client/factory.js';
export { typedConfiguration } from './client/typed-configuration.js';
export { RestTransport, type RestTransportOptions } from './client/transport.js';
export { type TransportRequest } from './client/raw-request.js';
export { ClientRateLimiter } from './client/rate-limiter.js';
export { setProcessCloudBudget, processCloudBudget } from './budget/process-budget.js';
export { WORKER_RESTART_MS } from './controller/run-workers.js';
export { getEventKey, getSpamKey } from './events/keys.js';
export { makeEvent } from './events/recorder.js';
export { EventCorrelator } from './events/correlator.js';
export { getReference } from './events/reference.js';
export { ControllerManagerMetrics } from './metrics/controller-manager.js';
export { CERT_VALIDITY_MS, TinyCA } from './tls/tiny-ca.js';
export { sprintf } from './sprintf/sprintf.js';
export { jitter } from './wait/jitter.js';
export { LruCache } from './lru/lru-cache.js';
export { onError, defaultRetry, defaultBackoff, BackoffStepper } from './retry/retry.js';
export { TokenBucket, WHOLE_TOKEN } from './token-bucket/token-bucket.js';
export { workqueueDurationBuckets } from './workqueue/metrics.js';
export { routeQueueRateLimiter } from './workqueue/default-rate-limiters.js';
export { leaderElectionJitterFactor } from './leader-election/jitter-factor.js';
export {
  setProcessLeaseFence,
  checkFence,
  fenceSignal,
  leaseWriteGuard,
  type LeaseWriteGuardOptions,
  markProcessDeposed,
} from './leader-election/fence.js';
export { kubeResourceOf, traceCloudCall } from './tracing/spans.js';

/**
 * `@ccm-kit/runtime/internal`: names that sibling ccm-kit packages and this package's tests share but that
 * are NOT public API. Not covered by semver: anything here may change or disappear in any release. Vendors
 * import from `@ccm-kit/runtime` only.
 */
export {
  parseTime,
  clientNode,
  loadClientNode,
  asClientNodeKubeConfig,
  isRawApiClient,
  rawApiClient,
  cachedApiClient,
  discardResponse,
  type ApiClientSource,
  ServerAnswers,
  type ServerProbe,
  clientFactoryTransport,
  clientFactoryRawConfig,
  RawApi,
  type RawApiConfig,
  RestTransport,
  type RestTransportOptions,
  type TransportRequest,
  ClientRateLimiter,
} from './client/index.js';
export { setProcessCloudBudget, processCloudBudget } from './budget/index.js';
export { WORKER_RESTART_MS } from './controller/index.js';
export { getEventKey, getSpamKey, makeEvent, EventCorrelator, getReference } from './events/index.js';
export { ControllerManagerMetrics } from './metrics/controller-manager.js';
export { CERT_VALIDITY_MS, TinyCA } from './tls/index.js';
export {
  sprintf,
  jitter,
  LruCache,
  onError,
  defaultRetry,
  defaultBackoff,
  BackoffStepper,
  TokenBucket,
} from './util/index.js';
export { workqueueDurationBuckets, serviceQueueRateLimiter, routeQueueRateLimiter } from './workqueue/index.js';
export {
  leaderElectionJitterFactor,
  setProcessLeaseFence,
  checkFence,
  fenceSignal,
  leaseWriteGuard,
  type LeaseWriteGuardOptions,
  markProcessDeposed,
} from './leader-election/index.js';
export { kubeResourceOf, traceCloudCall } from './tracing/index.js';

/**
 * `@ccm-kit/runtime/guard`: the cloud-call guard a provider wraps its cloud API client in: concurrency limit, retries,
 * Retry-After, timeouts, metrics, credentials (`CloudCallGuard`). Public API, covered by semver.
 */
export {
  staticCredential,
  fileCredential,
  type CredentialProvider,
  type FileCredentialOptions,
} from './credentials.js';
export {
  classifyCloudError,
  retryAfterOf,
  type CloudErrorClass,
  RETRYABLE_CLASSES,
  CloudCallTimeoutError,
  CloudCallThrottledError,
} from './errors.js';
export { type CloudCallGuardOptions, type CloudCallContext, type CloudCallOptions, CloudCallGuard } from './guard.js';
export { guardMetrics, type GuardMetrics } from './metrics.js';
export { parseRetryAfter } from './retry-after.js';

/**
 * `@ccm-kit/runtime/guard`: the cloud-call guard a provider wraps its cloud API client in: concurrency limit, retries,
 * Retry-After, timeouts, metrics, credentials (`CloudCallGuard`). Public API, covered by semver.
 */
export {
  staticCredential,
  fileCredential,
  type CredentialProvider,
  type FileCredentialOptions,
  classifyCloudError,
  retryAfterOf,
  type CloudErrorClass,
  RETRYABLE_CLASSES,
  CloudCallTimeoutError,
  type CloudCallGuardOptions,
  type CloudCallContext,
  type CloudCallOptions,
  CloudCallThrottledError,
  CloudCallGuard,
  guardMetrics,
  type GuardMetrics,
  parseRetryAfter,
} from '../guard/index.js';

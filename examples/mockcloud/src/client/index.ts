export {
  type ListOptions,
  MockCloudClient,
  type MockCloudClientOptions,
  type RetryOptions,
} from './client.js';
export {
  isAuthError,
  isNotFound,
  isRetryable,
  MockCloudApiError,
  MockCloudNetworkError,
  MockCloudTimeoutError,
} from './errors.js';
export { type ClientMetrics, clientMetrics } from './metrics.js';
export { parseRetryAfter } from './retry-after.js';
export { type FileTokenOptions, fileToken, staticToken, type TokenSource } from './token.js';
export type { CloudLoadBalancer, HealthCheck, Listener, LoadBalancerSpec, Server } from './types.js';

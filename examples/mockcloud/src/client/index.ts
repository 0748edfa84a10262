export { type ListOptions, MockCloudClient, type MockCloudClientOptions, type RetryOptions } from './client.js';
export { isAuthError, isNotFound, MockCloudApiError, MockCloudNetworkError, MockCloudTimeoutError } from './errors.js';
export { redactURL } from './redact.js';
export { idSegment, isValidID, MalformedIDError, MOCKCLOUD_ID_PATTERN } from './ids.js';
export type {
  CloudLoadBalancer,
  CloudRoute,
  CloudRouteSpec,
  HealthCheck,
  Listener,
  LoadBalancerSpec,
  Server,
} from './types.js';

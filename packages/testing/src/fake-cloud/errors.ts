import { RetryError } from '@ccm-kit/cloud-provider';
import type { FakeCloudMethod } from './methods.js';

/**
 * Thrown by a {@link FakeCloud} method refused by a throttle (a token bucket with no token left).
 * It is a {@link RetryError}, so the service controller requeues after {@link RetryError.retryAfterMs}
 * milliseconds, as it would for a vendor's own rate-limit error.
 */
export class ThrottledError extends RetryError {
  /** The method that was refused. */
  readonly method: FakeCloudMethod;
  /** The HTTP status a real cloud answers (`Too Many Requests`): the error classifies as `throttled`. */
  readonly status = 429;

  /**
   * @param method - the refused method.
   * @param retryAfterMs - when a token is next available, in milliseconds from now.
   */
  constructor(method: FakeCloudMethod, retryAfterMs: number) {
    super(`fake cloud: ${method} throttled, retry after ${retryAfterMs} ms`, retryAfterMs);
    this.name = 'ThrottledError';
    this.method = method;
  }
}

/** The default error thrown by an error-injection policy that has no `error` of its own. */
export class InjectedError extends Error {
  /** The method that failed. */
  readonly method: FakeCloudMethod;

  constructor(method: FakeCloudMethod) {
    super(`fake cloud: injected error in ${method}`);
    this.name = 'InjectedError';
    this.method = method;
  }
}

/**
 * The backoff of the service controller's `service` and `node` queues. Follows upstream
 * `controllers/service/controller.go` (`minRetryDelay`, `maxRetryDelay`, and `New`'s
 * `NewTypedItemExponentialFailureRateLimiter(minRetryDelay, maxRetryDelay)`).
 */
import { itemExponentialFailureRateLimiter, type RateLimiter } from '@ccm-kit/runtime/workqueue';

/** Upstream `minRetryDelay`: first per-key backoff of the `service` and `node` queues, in ms. */
export const SERVICE_MIN_RETRY_DELAY_MS = 5_000;
/** Upstream `maxRetryDelay`: backoff cap of the `service` and `node` queues, in ms. */
export const SERVICE_MAX_RETRY_DELAY_MS = 300_000;

/**
 * The limiter of the `service` and `node` queues: per key, {@link SERVICE_MIN_RETRY_DELAY_MS} × 2^failures,
 * capped at {@link SERVICE_MAX_RETRY_DELAY_MS}.
 */
export function serviceQueueRateLimiter<T = string>(): RateLimiter<T> {
  return itemExponentialFailureRateLimiter<T>(SERVICE_MIN_RETRY_DELAY_MS, SERVICE_MAX_RETRY_DELAY_MS);
}

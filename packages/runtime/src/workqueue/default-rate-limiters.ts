/**
 * The rate limiters of the upstream cloud controllers' queues.
 */
import type { Clock } from '../clock/clock.js';
import { bucketRateLimiter } from './bucket-rate-limiter.js';
import {
  itemExponentialFailureRateLimiter,
  maxOfRateLimiter,
  type RateLimiter,
  withMaxWaitRateLimiter,
} from './rate-limiter.js';

/**
 * client-go `DefaultControllerRateLimiter`: the larger of a per-item exponential backoff
 * (5 ms × 2^failures, capped at 1000 s) and an overall token bucket (10 qps, burst 100).
 * Used by the cloud-node controller's `Nodes` queue.
 */
export function defaultControllerRateLimiter<T = unknown>(clock?: Clock): RateLimiter<T> {
  return maxOfRateLimiter<T>(itemExponentialFailureRateLimiter<T>(5, 1_000_000), bucketRateLimiter<T>(10, 100, clock));
}

/**
 * The route controller's `Routes` queue limiter: a token bucket of one token every 10 s, burst 1,
 * with each wait capped at 10 s.
 */
export function routeQueueRateLimiter<T = unknown>(clock?: Clock): RateLimiter<T> {
  return withMaxWaitRateLimiter<T>(bucketRateLimiter<T>(0.1, 1, clock), 10_000);
}

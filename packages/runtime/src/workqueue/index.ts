/**
 * `@ccm-kit/runtime/workqueue`: the rate-limited work queue, its rate limiters and `parallelizeUntil` (client-go
 * `util/workqueue`). Public API, covered by semver.
 */
export { bucketRateLimiter } from './bucket-rate-limiter.js';
export { defaultControllerRateLimiter } from './default-rate-limiters.js';
export { parallelizeUntil, type DoWorkPieceFunc } from './parallelizer.js';
export { type WorkqueueOptions, Workqueue } from './queue.js';
export {
  itemExponentialFailureRateLimiter,
  itemFastSlowRateLimiter,
  maxOfRateLimiter,
  withMaxWaitRateLimiter,
  type RateLimiter,
} from './rate-limiter.js';

/**
 * `@ccm-kit/runtime/workqueue`: the rate-limited work queue, its rate limiters and `parallelizeUntil` (client-go
 * `util/workqueue`). Public API, covered by semver.
 */
export {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  parallelizeUntil,
  type DoWorkPieceFunc,
  type WorkqueueOptions,
  Workqueue,
  itemExponentialFailureRateLimiter,
  itemFastSlowRateLimiter,
  maxOfRateLimiter,
  withMaxWaitRateLimiter,
  type RateLimiter,
} from '../workqueue/index.js';

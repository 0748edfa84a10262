export * from './bucket-rate-limiter.js';
export * from './default-rate-limiters.js';
export * from './parallelizer.js';
export { workqueueDurationBuckets } from './metrics.js';
export * from './queue.js';
export * from './rate-limiter.js';

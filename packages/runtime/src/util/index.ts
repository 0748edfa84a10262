export * from './clock.js';
export * from './format.js';
export * from './jitter.js';
export * from './lru.js';
export * from './retry.js';
export * from './sleep.js';
export * from './token-bucket.js';
export * from './wait.js';

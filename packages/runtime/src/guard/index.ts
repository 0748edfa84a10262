export * from './credentials.js';
export * from './errors.js';
export * from './guard.js';
export * from './metrics.js';
export * from './retry-after.js';

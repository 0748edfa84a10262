export * from './logging.js';
export * from './metrics/registry.js';
export * from './client/index.js';
export * from './informers/index.js';
export * from './leader-election/index.js';

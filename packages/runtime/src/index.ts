export * from './logging.js';
export * from './metrics/registry.js';

export * from './elector.js';
export * from './healthz.js';
export * from './lease-lock.js';
export * from './metrics.js';
export * from './record.js';
export * from './fence.js';
export * from './fence-interceptor.js';

export * from './errors.js';
export * from './factory.js';
export * from './kubeconfig.js';
export * from './metrics.js';
export * from './patch.js';
export * from './rate-limiter.js';
export * from './time.js';
export * from './transport.js';

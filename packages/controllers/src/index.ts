export * from './builtin.js';
export * from './cloud-node/index.js';
export * from './context.js';
export * from './node-lifecycle/index.js';
export * from './route/index.js';
export * from './service/index.js';
export * from './shared/index.js';

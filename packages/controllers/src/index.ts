export * from './context.js';
export * from './service/index.js';
export * from './cloud-node/index.js';
export * from './node-lifecycle/index.js';

export * from './fake-cloud/index.js';
export * from './control-plane/index.js';

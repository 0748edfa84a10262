export * from './conformance/index.js';
export * from './control-plane/index.js';
export * from './fake-cloud/index.js';

export * from './annotation-set.js';
export * from './errors.js';
export * from './markdown.js';
export type * from './spec.js';

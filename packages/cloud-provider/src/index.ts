export * from './cloud.js';
export * from './errors.js';
export * from './informers.js';

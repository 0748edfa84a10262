export * from './run-workers.js';

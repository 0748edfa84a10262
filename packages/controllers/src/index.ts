export * from './context.js';

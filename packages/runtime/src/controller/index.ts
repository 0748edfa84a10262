export * from './process-next-work-item.js';
export * from './reconciler.js';
export * from './run-controller.js';
export * from './run-workers.js';

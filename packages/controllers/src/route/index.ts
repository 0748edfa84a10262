/** The node-route controller (upstream `controllers/route`). */
export * from './cluster-cidrs.js';
export * from './controller.js';
export * from './descriptor.js';
export * from './metrics.js';
export * from './network-condition.js';
export * from './node-update.js';
export * from './plan.js';
export * from './responsibility.js';

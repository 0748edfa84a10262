export * from './flags/flag-set.js';
export * from './manager/cloud.js';
export * from './manager/manager.js';
export * from './manager/run.js';
export * from './options/ccm-flags.js';
export * from './options/config.js';
export * from './options/controller-selection.js';
export * from './serving/delegated-auth.js';

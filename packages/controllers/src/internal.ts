/**
 * `@ccm-kit/controllers/internal`: names that sibling ccm-kit packages and this package's tests share but that
 * are NOT public API. Not covered by semver: anything here may change or disappear in any release. Vendors
 * import from `@ccm-kit/controllers` only (a built-in controller is replaced or wrapped through its
 * descriptor, not its class).
 */
export { CloudNodeLifecycleController, type CloudNodeLifecycleControllerOptions } from './node-lifecycle/index.js';
export { registeredControllers } from './builtin.js';

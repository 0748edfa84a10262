/** The cloud-node-lifecycle controller (upstream `controllers/nodelifecycle`). */
export {
  CLOUD_NODE_LIFECYCLE_METRICS_NAME,
  CloudNodeLifecycleController,
  type CloudNodeLifecycleControllerOptions,
  DEFAULT_NODE_MONITOR_PERIOD_MS,
  DELETE_NODE_EVENT,
  DELETE_NODE_FAILED_EVENT,
} from './controller.js';
export { cloudNodeLifecycleController } from './descriptor.js';
export { SHUTDOWN_TAINT } from './node-state.js';

/** The cloud-node controller (upstream `controllers/node`). */
export {
  CLOUD_NODE_METRICS_NAME,
  CLOUD_NODE_QUEUE_NAME,
  CloudNodeController,
  type CloudNodeControllerOptions,
  DEFAULT_NODE_STATUS_UPDATE_FREQUENCY_MS,
} from './controller.js';
export { cloudNodeController } from './descriptor.js';
export { MissingProviderIDError } from './instance-metadata.js';
export { initialNodeSyncDelay, NODE_CONTROLLER_BUCKETS, removeCloudProviderTaintDelay } from './metrics.js';

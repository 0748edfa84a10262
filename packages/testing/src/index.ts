export * from './cluster/index.js';
export * from './conformance/index.js';
export * from './control-plane/index.js';
export * from './fake-cloud/index.js';
export { type CapturedLogs, captureLogs, restoreLogWriter } from './logging/capture-logs.js';
export { silentLogger } from './logging/silent-logger.js';
export { errorMessage } from './wait/error-message.js';
export {
  type KubeletNode,
  PROVIDED_NODE_IP_ANNOTATION,
  registerKubeletNodes,
} from './local-cluster/kubelet-nodes.js';
export { nodeTable, serviceTable, table } from './local-cluster/tables.js';

export * from './cluster/index.js';
export * from './conformance/index.js';
export * from './control-plane/index.js';
export * from './fake-cloud/index.js';
export { type CapturedLogs, captureLogs, restoreLogWriter } from './logging/capture-logs.js';
export { silentLogger } from './logging/silent-logger.js';
export { errorMessage } from './wait/error-message.js';

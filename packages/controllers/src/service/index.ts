/** The service load-balancer controller (`service-lb-controller`): its descriptor, class and upstream logic. */
export {
  checkServiceCapabilities,
  REASON_UNSUPPORTED_SERVICE_FIELD,
  type UnsupportedServiceField,
  unsupportedFieldsMessage,
} from './capability-check.js';
export * from './controller.js';
export * from './descriptor.js';
export * from './events.js';
export { DEFAULT_HOST_UPDATE_WINDOW_MS, HostUpdateWindow } from './host-update-window.js';
export * from './metrics.js';
export { type NeedsUpdateReason, needsUpdate, needsUpdateReason, portsEqualForLB } from './needs-update.js';
export {
  allNodePredicates,
  filterWithPredicates,
  listWithPredicates,
  loggableNodeNames,
  type NodeConditionPredicate,
  nodeIncludedPredicate,
  nodeNotDeletedPredicate,
  nodeReadyPredicate,
  nodesSufficientlyEqual,
  nodeUnTaintedPredicate,
  respectsPredicates,
  shouldSyncUpdatedNode,
  stableNodeSetPredicates,
} from './host-predicates.js';
export { type CachedService, ServiceCache } from './service-cache.js';
export type { KeyQueue } from './types.js';

/** The orphaned load-balancer collector (`service-lb-gc-controller`): its descriptor, class and settings. */
export {
  type LoadBalancerGCConfig,
  type LoadBalancerGCMode,
  LOAD_BALANCER_GC_MODES,
  defaultLoadBalancerGCConfig,
  isLoadBalancerGCMode,
  loadBalancerGCConfigProblems,
} from './config.js';
export {
  type CollectorPassResult,
  type ListingLoadBalancer,
  LoadBalancerCollector,
  type LoadBalancerCollectorOptions,
} from './controller.js';
export {
  LoadBalancerGCStartError,
  SERVICE_LB_GC_CONTROLLER,
  SERVICE_LB_GC_CONTROLLER_EVENT_SOURCE,
  serviceLbGcController,
} from './descriptor.js';
export {
  EVENT_DELETE_ORPHANED_LOAD_BALANCER_FAILED,
  EVENT_DELETED_ORPHANED_LOAD_BALANCER,
  EVENT_ORPHANED_LOAD_BALANCER,
  EVENT_ORPHANED_LOAD_BALANCER_KEPT,
} from './events.js';

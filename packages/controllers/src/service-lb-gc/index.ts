/**
 * The orphaned load-balancer collector (`service-lb-gc-controller`): its descriptor and settings. The class,
 * metrics and event reasons are internal (replace or wrap the descriptor).
 */
export {
  type LoadBalancerGCConfig,
  type LoadBalancerGCMode,
  LOAD_BALANCER_GC_MODES,
  defaultLoadBalancerGCConfig,
  loadBalancerGCConfigProblems,
} from './config.js';
export { SERVICE_LB_GC_CONTROLLER, serviceLbGcController } from './descriptor.js';

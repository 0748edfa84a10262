/**
 * The orphaned load-balancer collector (`service-lb-gc-controller`): its descriptor (its settings are part of the
 * controllers' contract, `contract/load-balancer-gc-config.ts`). The class, metrics and event reasons are internal
 * (replace or wrap the descriptor).
 */
export { SERVICE_LB_GC_CONTROLLER, serviceLbGcController } from './descriptor.js';

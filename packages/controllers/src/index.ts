/**
 * `@ccm-kit/controllers`: the four cloud controllers as descriptors the manager starts
 * (`builtInControllers`), the off-by-default orphaned load-balancer collector
 * (`serviceLbGcController`) and node IPAM (`nodeIpamController`), the contract a vendor's own controller implements (`ControllerDescriptor`, `ControllerContext`, `CloudControllerConfig`, the constructor shape `ControllerOptions`) and the helpers a controller shares with the built-in ones
 * (event recording, node ownership). A vendor replaces a built-in controller by passing a descriptor with its
 * name, or adds one with a new name. Every name here is public API, covered by semver; the package README
 * lists them by group.
 */
export { builtInControllers } from './builtin.js';
export { cloudNodeController } from './cloud-node/index.js';
export { type CloudControllerConfig, defaultCloudControllerConfig } from './contract/controller-config.js';
export {
  type ControllerContext,
  type ControllerStartResult,
  type ControllerDescriptor,
} from './contract/controller-context.js';
export { type ControllerOptions } from './contract/controller-options.js';
export {
  type LoadBalancerGCConfig,
  type LoadBalancerGCMode,
  LOAD_BALANCER_GC_MODES,
  defaultLoadBalancerGCConfig,
  loadBalancerGCConfigProblems,
} from './contract/load-balancer-gc-config.js';
export {
  DEFAULT_NODE_CIDR_MASK_SIZE_IPV4,
  DEFAULT_NODE_CIDR_MASK_SIZE_IPV6,
  defaultNodeIPAMConfig,
  NODE_IPAM_CONTROLLER,
  type NodeIPAMConfig,
  nodeIpamController,
  RANGE_ALLOCATOR,
  serviceClusterIPRangeProblems,
} from './node-ipam/index.js';
export { cloudNodeLifecycleController } from './node-lifecycle/index.js';
export { nodeRouteController } from './route/index.js';
export { DEFAULT_HOST_UPDATE_WINDOW_MS, serviceLbController } from './service/index.js';
export { SERVICE_LB_GC_CONTROLLER, serviceLbGcController } from './service-lb-gc/index.js';
export {
  startWithEventRecorder,
  type RunWithRecorder,
  isNodeOwned,
  ownedNodes,
  ownedNodeHandler,
  nodeReference,
} from './shared/index.js';

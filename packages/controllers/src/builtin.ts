/**
 * The controllers ccm-kit registers: the four built-ins, in a stable order (upstream keeps them in
 * `DefaultInitFuncConstructors`, a map with no order): node initialization, node lifecycle, load balancers, routes;
 * then the off-by-default ones (`service-lb-gc-controller`, beyond upstream; `node-ipam-controller`, which
 * upstream's sample CCM adds). The app selects among them with
 * `--controllers`; a vendor appends its own descriptors.
 */
import { cloudNodeController } from './cloud-node/descriptor.js';
import type { ControllerDescriptor } from './contract/controller-context.js';
import { nodeIpamController } from './node-ipam/descriptor.js';
import { cloudNodeLifecycleController } from './node-lifecycle/descriptor.js';
import { nodeRouteController } from './route/descriptor.js';
import { serviceLbController } from './service/descriptor.js';
import { serviceLbGcController } from './service-lb-gc/descriptor.js';

/** `cloud-node-controller`, `cloud-node-lifecycle-controller`, `service-lb-controller`, `node-route-controller`. */
export const builtInControllers: readonly ControllerDescriptor[] = Object.freeze([
  cloudNodeController,
  cloudNodeLifecycleController,
  serviceLbController,
  nodeRouteController,
]);

/**
 * Every controller the manager knows before the vendor's, in its order: {@link builtInControllers}, then the
 * off-by-default `service-lb-gc-controller` and `node-ipam-controller` (enabled only by naming them in
 * `--controllers`).
 */
export const registeredControllers: readonly ControllerDescriptor[] = Object.freeze([
  ...builtInControllers,
  serviceLbGcController,
  nodeIpamController,
]);

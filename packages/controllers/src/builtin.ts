/**
 * The four built-in controllers, in a stable order (upstream keeps them in `DefaultInitFuncConstructors`,
 * a map with no order): node initialization, node lifecycle, load balancers, routes. The app selects
 * among them with `--controllers`; a vendor appends its own descriptors.
 */
import { cloudNodeController } from './cloud-node/descriptor.js';
import type { ControllerDescriptor } from './context.js';
import { cloudNodeLifecycleController } from './node-lifecycle/descriptor.js';
import { nodeRouteController } from './route/descriptor.js';
import { serviceLbController } from './service/descriptor.js';

/** `cloud-node-controller`, `cloud-node-lifecycle-controller`, `service-lb-controller`, `node-route-controller`. */
export const builtInControllers: readonly ControllerDescriptor[] = Object.freeze([
  cloudNodeController,
  cloudNodeLifecycleController,
  serviceLbController,
  nodeRouteController,
]);

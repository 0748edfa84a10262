/**
 * The four built-in controllers, in a stable order (upstream `DefaultInitFuncConstructors`, which is a map;
 * ccm-kit lists them as upstream's `names` package declares the concepts: node init, node lifecycle, load
 * balancers, routes). The app selects among them with `--controllers`.
 */
import type { ControllerDescriptor } from './context.js';
import { nodeRouteController } from './route/descriptor.js';

/** `cloud-node-controller`, `cloud-node-lifecycle-controller`, `service-lb-controller`, `node-route-controller`. */
export const builtInControllers: readonly ControllerDescriptor[] = Object.freeze([nodeRouteController]);

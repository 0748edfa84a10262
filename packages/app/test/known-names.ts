/** The names `--controllers` knows with only the four built-in controllers and no webhooks. */
import type { KnownNames } from '../src/options/config.js';

/** Canonical built-in controller names, in the manager's start order. */
export const CANONICAL = [
  'cloud-node-controller',
  'cloud-node-lifecycle-controller',
  'node-route-controller',
  'service-lb-controller',
];

/** Built-ins, their upstream aliases, no webhooks. */
export const BUILT_IN_KNOWN: KnownNames = {
  controllers: CANONICAL,
  controllerAliases: {
    'cloud-node': 'cloud-node-controller',
    'cloud-node-lifecycle': 'cloud-node-lifecycle-controller',
    route: 'node-route-controller',
    service: 'service-lb-controller',
  },
  webhooks: [],
};

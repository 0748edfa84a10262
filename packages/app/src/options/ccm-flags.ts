/**
 * The cloud-controller-manager's flag sets, with upstream's names, defaults and help text
 * (k8s.io/cloud-provider `options`, k8s.io/controller-manager `options`, component-base). Each option group
 * (one module per group, as upstream's `options/*.go`) adds its flags to the help sections here; durations
 * are held in milliseconds.
 */
import type { FlagSet } from '../flags/flag-set.js';
import { authenticationOptions } from './authentication.js';
import { authorizationOptions } from './authorization.js';
import { debuggingOptions } from './debugging.js';
import { featureGateOptions } from './feature-gates.js';
import { genericOptions } from './generic.js';
import { kubeCloudSharedOptions } from './kube-cloud-shared.js';
import { leaderElectionOptions } from './leader-election.js';
import { leaderMigrationOptions } from './leader-migration.js';
import { loggingOptions } from './logging.js';
import { miscOptions } from './misc.js';
import { nodeControllerOptions } from './node-controller-options.js';
import { NamedFlagSets, type OptionGroup } from './option-group.js';
import { secureServingOptions } from './secure-serving.js';
import { serviceControllerOptions } from './service-controller.js';
import { webhookOptions } from './webhook.js';

export { ACCEPTED_NO_OP_FEATURE_GATES, ALPHA_FEATURE_GATES, KNOWN_FEATURE_GATES } from './feature-gates.js';

/** The help sections, in upstream's order. */
const SECTIONS = [
  'generic',
  'leader-election',
  'leader-migration',
  'debugging',
  'cloud-node-controller',
  'service-lb-controller',
  'webhook',
  'secure serving',
  'authentication',
  'authorization',
  'misc',
  'global',
];

/**
 * Every option group, in the order their problems are reported (upstream `CloudControllerManagerOptions.Validate`:
 * generic controller-manager options first, then the cloud's shared options, the controllers', serving, webhooks).
 */
export const OPTION_GROUPS: readonly OptionGroup<unknown>[] = [
  genericOptions,
  leaderElectionOptions,
  leaderMigrationOptions,
  debuggingOptions,
  kubeCloudSharedOptions,
  featureGateOptions,
  nodeControllerOptions,
  serviceControllerOptions,
  secureServingOptions,
  authenticationOptions,
  authorizationOptions,
  webhookOptions,
  miscOptions,
  loggingOptions,
];

/** Builds fresh flag sets (one call per parse, so defaults a vendor changes stay local). */
export function cloudControllerManagerFlagSets(): FlagSet[] {
  const fss = new NamedFlagSets();
  for (const name of SECTIONS) fss.flagSet(name);
  for (const group of OPTION_GROUPS) group.addFlags(fss);
  return fss.all();
}

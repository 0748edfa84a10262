/** The option groups of the cloud-controller-manager, in one list (used for flags and for validation). */
import { authenticationOptions } from './authentication.js';
import { authorizationOptions } from './authorization.js';
import { cloudBudgetOptions } from './cloud-budget.js';
import { debuggingOptions } from './debugging.js';
import { featureGateOptions } from './feature-gates.js';
import { genericOptions } from './generic.js';
import { kubeCloudSharedOptions } from './kube-cloud-shared.js';
import { leaderElectionOptions } from './leader-election.js';
import { leaderMigrationOptions } from './leader-migration.js';
import { loggingOptions } from './logging.js';
import { miscOptions } from './misc.js';
import { nodeControllerOptions } from './node-controller-options.js';
import { nodeIpamOptions } from './node-ipam.js';
import { outOfServiceOptions } from './out-of-service.js';
import type { OptionGroup } from './option-group.js';
import { secureServingOptions } from './secure-serving.js';
import { serviceControllerOptions } from './service-controller.js';
import { serviceLbGcOptions } from './service-lb-gc.js';
import { webhookOptions } from './webhook.js';

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
  outOfServiceOptions,
  serviceControllerOptions,
  cloudBudgetOptions,
  serviceLbGcOptions,
  nodeIpamOptions,
  secureServingOptions,
  authenticationOptions,
  authorizationOptions,
  webhookOptions,
  miscOptions,
  loggingOptions,
];

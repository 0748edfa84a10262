/**
 * Turns parsed flags into the manager's configuration: every option group validates its flags (all problems
 * reported at once), then contributes its part — upstream `options.Config` → `Validate` + `ApplyTo`. All
 * durations are in milliseconds.
 */
import type { CloudControllerConfig } from '@ccm-kit/controllers';
import type { ParsedFlags } from '../flags/flag-set.js';
import { type AuthenticationConfig, authenticationOptions } from './authentication.js';
import { type AuthorizationConfig, authorizationOptions } from './authorization.js';
import { type CloudBudgetConfig, cloudBudgetOptions } from './cloud-budget.js';
import { OPTION_GROUPS } from './option-groups.js';
import { debuggingOptions } from './debugging.js';
import { featureGateOptions } from './feature-gates.js';
import { type GenericConfig, genericOptions } from './generic.js';
import { kubeCloudSharedOptions, type KubeCloudSharedConfig } from './kube-cloud-shared.js';
import { type LeaderElectionConfig, leaderElectionOptions } from './leader-election.js';
import { type LeaderMigrationOptionsConfig, leaderMigrationOptions } from './leader-migration.js';
import { type LoggingConfig, loggingOptions } from './logging.js';
import { type MiscConfig, miscOptions } from './misc.js';
import { nodeControllerOptions } from './node-controller-options.js';
import { nodeIpamOptions } from './node-ipam.js';
import { outOfServiceOptions } from './out-of-service.js';
import type { KnownNames } from './option-group.js';
import { type SecureServingConfig, secureServingOptions } from './secure-serving.js';
import { serviceControllerOptions } from './service-controller.js';
import { serviceLbGcOptions } from './service-lb-gc.js';
import { webhookOptions, type WebhookOptionsConfig } from './webhook.js';

export type { KnownNames } from './option-group.js';
export type { LeaderElectionConfig } from './leader-election.js';
export type { SecureServingConfig } from './secure-serving.js';
export type { AuthenticationConfig } from './authentication.js';
export type { AuthorizationConfig } from './authorization.js';

/** Delegated authentication and authorization settings. */
export type AuthConfig = AuthenticationConfig & AuthorizationConfig;

/** The complete configuration of one cloud-controller-manager process. */
export interface CloudControllerManagerConfig
  extends
    Omit<KubeCloudSharedConfig, 'controllerConfig'>,
    GenericConfig,
    WebhookOptionsConfig,
    Omit<MiscConfig, 'controllerConfig'>,
    LoggingConfig,
    CloudBudgetConfig {
  /** `--leader-elect*`. */
  leaderElection: LeaderElectionConfig;
  /** `--enable-leader-migration` (effective only with `--leader-elect`) and `--leader-migration-config`. */
  leaderMigration: LeaderMigrationOptionsConfig;
  /** The secure port: `--bind-address`, `--secure-port`, `--cert-dir` and the TLS flags. */
  secureServing: SecureServingConfig;
  /** Delegated authentication and authorization of the secure port. */
  auth: AuthConfig;
  /** `--profiling` (default true): serve `/debug/pprof/profile`, `/debug/pprof/heap` and `/debug/flags/v` on the secure port. */
  profiling: boolean;
  /** What the controllers receive. */
  controllerConfig: CloudControllerConfig;
  /** Every flag value by name, vendor flags included. */
  flags: Readonly<Record<string, unknown>>;
}

/** Invalid configuration: every problem found, one per line in the message. */
export class ConfigError extends Error {
  constructor(
    /** Each problem, one sentence naming the flag and the fix. */
    readonly problems: string[],
  ) {
    super(problems.length === 1 ? problems[0]! : `invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates the parsed flags and builds the configuration.
 * @throws ConfigError listing every problem, each naming its flag (unknown controllers, bad lock type or
 *   durations, empty --cloud-provider, worker counts below 1, port clash, ...).
 */
export function buildConfig(parsed: ParsedFlags, known: KnownNames): CloudControllerManagerConfig {
  const v = parsed.values;
  const problems = OPTION_GROUPS.flatMap((group) => group.validate(v, known));
  if (problems.length > 0) throw new ConfigError(problems);
  const { controllerConfig: shared, ...cloud } = kubeCloudSharedOptions.applyTo(v, known);
  const { controllerConfig: misc, ...connection } = miscOptions.applyTo(v, known);
  return {
    ...cloud,
    ...genericOptions.applyTo(v, known),
    ...webhookOptions.applyTo(v, known),
    ...connection,
    ...loggingOptions.applyTo(v, known),
    ...cloudBudgetOptions.applyTo(v, known),
    ...debuggingOptions.applyTo(v, known),
    leaderElection: leaderElectionOptions.applyTo(v, known),
    leaderMigration: leaderMigrationOptions.applyTo(v, known),
    secureServing: secureServingOptions.applyTo(v, known),
    auth: { ...authenticationOptions.applyTo(v, known), ...authorizationOptions.applyTo(v, known) },
    controllerConfig: {
      ...shared,
      ...misc,
      ...nodeControllerOptions.applyTo(v, known),
      ...serviceControllerOptions.applyTo(v, known),
      ...serviceLbGcOptions.applyTo(v, known),
      ...nodeIpamOptions.applyTo(v, known),
      ...outOfServiceOptions.applyTo(v, known),
      ...featureGateOptions.applyTo(v, known),
    },
    flags: { ...v },
  };
}

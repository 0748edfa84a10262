/**
 * `@ccm-kit/app`: the cloud-controller-manager command — `runCloudControllerManager` (the vendor's
 * `main`) and `startCloudControllerManager` (in-process, returns a handle), their options and errors, the
 * vendor's own flags (`FlagSet`), controller selection (`--controllers`) and the webhook API. Every name
 * here is public API, covered by semver; the package README lists them by group.
 */
export {
  type FlagKind,
  type FlagValueOf,
  type FlagDefinition,
  FlagError,
  FlagSet,
  type ParsedFlags,
} from './flags/flag-set.js';
export { StartupError } from './errors.js';
// The manager's and the webhook handler's modules are imported on first use (manager/start.ts); `export type`
// keeps this file from importing them.
export type { StartOptions, CloudControllerManager } from './manager/manager.js';
export { startCloudControllerManager } from './manager/start.js';
export { allControllers } from './manager/controller-registry.js';
export { LeaderElectionLostError } from './manager/leader-election-lost.js';
export { DEFAULT_PROVIDER_SHUTDOWN_TIMEOUT_MS } from './manager/shutdown.js';
export { type FlagDefaults } from './options/configure.js';
export { runCloudControllerManager, type RunOptions } from './manager/run.js';
export {
  type LeaderElectionConfig,
  type SecureServingConfig,
  type AuthenticationConfig,
  type AuthorizationConfig,
  type AuthConfig,
  type CloudControllerManagerConfig,
  ConfigError,
} from './options/config.js';
export {
  controllerAliases,
  validateControllerList,
  resolveControllerAliases,
  isControllerEnabled,
} from './options/controller-selection.js';
export { serveAdmissionReview } from './webhooks/serve-admission.js';
export type { AdmissionRequest, AdmissionResponse, WebhookConfig, WebhookHttpResponse } from './webhooks/admission.js';
export { enabledWebhooks } from './webhooks/enabled-webhooks.js';
export { type CloudBudgetConfig } from './options/cloud-budget.js';
export { type GenericConfig } from './options/generic.js';
export { type KubeCloudSharedConfig } from './options/kube-cloud-shared.js';
export { type LeaderMigrationOptionsConfig } from './options/leader-migration.js';
export { type LoggingConfig } from './options/logging.js';
export { type MiscConfig } from './options/misc.js';
export { type NamedCertKey } from './options/tls-options.js';
export { type WebhookOptionsConfig } from './options/webhook.js';

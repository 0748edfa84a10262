/**
 * Turns parsed flags into the manager's configuration, validating everything at once
 * (upstream `options.Config` → `Validate` + `ApplyTo`, reference §4.3). All durations are in milliseconds.
 */
import type { CloudControllerConfig } from '@ccm-kit/controllers';
import type { ParsedFlags } from '../flags/flag-set.js';
import { type NamedCertKey, nodeCipherList, nodeCurveList, parseNamedCertKey } from '../serving/tls-options.js';
import { ACCEPTED_NO_OP_FEATURE_GATES, ALPHA_FEATURE_GATES, KNOWN_FEATURE_GATES } from './ccm-flags.js';
import { resolveControllerAliases, validateControllerList } from './controller-selection.js';
import { validateNodeControllerOptions } from './node-controller-options.js';

/** Leader-election settings (`--leader-elect*`). */
export interface LeaderElectionConfig {
  leaderElect: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceLock: string;
  resourceName: string;
  resourceNamespace: string;
}

/**
 * HTTPS serving settings (`--bind-address`, `--secure-port`, TLS flags; the webhook port has the same set with
 * `--webhook-` names). `securePort` 0 turns serving off.
 */
export interface SecureServingConfig {
  bindAddress: string;
  securePort: number;
  certDir: string;
  /** Name of the generated pair in `certDir`: `cloud-controller-manager` or `cloud-controller-manager-webhook`. */
  pairName: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  /** As given (Go names); see `nodeCipherList`. */
  tlsCipherSuites: string[];
  /** Go CurveIDs as given; see `nodeCurveList`. */
  tlsCurvePreferences: string[];
  tlsMinVersion: string;
  tlsSniCertKeys: NamedCertKey[];
  /** `--permit-port-sharing` (SO_REUSEPORT); not on the webhook port. */
  permitPortSharing: boolean;
}

/** Delegated authentication and authorization settings. */
export interface AuthConfig {
  authenticationKubeconfig: string;
  authenticationSkipLookup: boolean;
  authenticationTolerateLookupFailure: boolean;
  tokenWebhookCacheTtlMs: number;
  clientCAFile: string;
  requestheaderClientCAFile: string;
  requestheaderAllowedNames: string[];
  requestheaderUsernameHeaders: string[];
  requestheaderGroupHeaders: string[];
  requestheaderExtraHeadersPrefix: string[];
  authorizationKubeconfig: string;
  authorizationAlwaysAllowPaths: string[];
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

/** The complete configuration of one cloud-controller-manager process. */
export interface CloudControllerManagerConfig {
  cloudProvider: { name: string; cloudConfigFile: string };
  allowUntaggedCloud: boolean;
  useServiceAccountCredentials: boolean;
  kubeconfig: string;
  master: string;
  kubeApiQps: number;
  kubeApiBurst: number;
  kubeApiContentType: string;
  minResyncPeriodMs: number;
  controllerStartIntervalMs: number;
  /** `--controllers` with aliases resolved (order and `-` kept). */
  controllers: string[];
  /** `--webhooks`, as given (`-name` entries kept). */
  webhooks: string[];
  /**
   * Webhook serving; as upstream, present only when `--webhook-secure-port` > 0 **and** `--webhooks` is not
   * empty (the server itself also needs the `CloudControllerManagerWebhook` gate and an enabled webhook).
   */
  webhookServing: SecureServingConfig | undefined;
  leaderElection: LeaderElectionConfig;
  /** `--enable-leader-migration` (effective only with `--leader-elect`) and `--leader-migration-config`. */
  leaderMigration: { enabled: boolean; configFile: string };
  secureServing: SecureServingConfig;
  auth: AuthConfig;
  profiling: boolean;
  verbosity: number;
  /** `--vmodule` as given (accepted; ccm-kit has one verbosity for every module). */
  vmodule: string;
  loggingFormat: 'text' | 'json';
  /** What the controllers receive. */
  controllerConfig: CloudControllerConfig;
  /** Every flag value by name, vendor flags included. */
  flags: Readonly<Record<string, unknown>>;
}

/** Invalid configuration: every problem found, one per line in the message. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? problems[0]! : `invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Names the config builder needs to validate `--controllers` and `--webhooks`. */
export interface KnownNames {
  controllers: readonly string[];
  controllerAliases: Readonly<Record<string, string>>;
  webhooks: readonly string[];
}

/**
 * Validates the parsed flags and builds the configuration.
 * @throws ConfigError listing every problem (unknown controllers, bad lock type, empty --cloud-provider, port clash, ...).
 */
export function buildConfig(parsed: ParsedFlags, known: KnownNames): CloudControllerManagerConfig {
  const f = parsed.values;
  const s = (k: string) => f[k] as string;
  const b = (k: string) => f[k] as boolean;
  const n = (k: string) => f[k] as number;
  const l = (k: string) => f[k] as string[];
  const problems: string[] = [];

  problems.push(...validateControllerList(l('controllers'), known.controllers, known.controllerAliases));
  problems.push(...validateControllerList(l('webhooks'), known.webhooks, {}, 'webhooks'));
  if (b('leader-elect') && s('leader-elect-resource-lock') !== 'leases') {
    problems.push('--leader-elect-resource-lock: resourceLock value must be "leases"');
  }
  if (b('leader-elect') && n('leader-elect-renew-deadline') >= n('leader-elect-lease-duration')) {
    problems.push('--leader-elect-renew-deadline must be less than --leader-elect-lease-duration');
  }
  if (b('leader-elect') && n('leader-elect-retry-period') <= 0) {
    problems.push('--leader-elect-retry-period must be greater than zero');
  }
  if (s('cloud-provider') === '') {
    problems.push(
      '--cloud-provider cannot be empty: set it to the name your provider registered with registerCloudProvider',
    );
  }
  const webhookPort = n('webhook-secure-port');
  if (webhookPort !== 0 && webhookPort === n('secure-port')) {
    problems.push('--webhook-secure-port cannot be the same value as --secure-port');
  }
  const secureServing = servingConfig(f, '', 'cloud-controller-manager', problems);
  const webhookServing = servingConfig(f, 'webhook-', 'cloud-controller-manager-webhook', problems);
  const gates = f['feature-gates'] as Record<string, boolean>;
  for (const g of Object.keys(gates)) {
    if (!(g in KNOWN_FEATURE_GATES) && !(g in ACCEPTED_NO_OP_FEATURE_GATES)) {
      problems.push(`--feature-gates: unrecognized feature gate: ${g}`);
    }
  }
  const nodeSyncs = n('concurrent-node-syncs');
  const statusUpdates = n('concurrent-node-status-updates');
  problems.push(
    ...validateNodeControllerOptions({
      concurrentNodeSyncs: nodeSyncs,
      concurrentNodeStatusUpdates: statusUpdates,
    }).map((e) => `--${e}`),
  );
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    cloudProvider: { name: s('cloud-provider'), cloudConfigFile: s('cloud-config') },
    allowUntaggedCloud: b('allow-untagged-cloud'),
    useServiceAccountCredentials: b('use-service-account-credentials'),
    kubeconfig: s('kubeconfig'),
    master: s('master'),
    kubeApiQps: n('kube-api-qps'),
    kubeApiBurst: n('kube-api-burst'),
    kubeApiContentType: s('kube-api-content-type'),
    minResyncPeriodMs: n('min-resync-period'),
    controllerStartIntervalMs: n('controller-start-interval'),
    controllers: resolveControllerAliases(l('controllers'), known.controllerAliases),
    webhooks: [...l('webhooks')],
    webhookServing: webhookPort > 0 && l('webhooks').length > 0 ? webhookServing : undefined,
    leaderElection: {
      leaderElect: b('leader-elect'),
      leaseDurationMs: n('leader-elect-lease-duration'),
      renewDeadlineMs: n('leader-elect-renew-deadline'),
      retryPeriodMs: n('leader-elect-retry-period'),
      resourceLock: s('leader-elect-resource-lock'),
      resourceName: s('leader-elect-resource-name'),
      resourceNamespace: s('leader-elect-resource-namespace'),
    },
    leaderMigration: { enabled: b('enable-leader-migration'), configFile: s('leader-migration-config') },
    secureServing,
    auth: {
      authenticationKubeconfig: s('authentication-kubeconfig'),
      authenticationSkipLookup: b('authentication-skip-lookup'),
      authenticationTolerateLookupFailure: b('authentication-tolerate-lookup-failure'),
      tokenWebhookCacheTtlMs: n('authentication-token-webhook-cache-ttl'),
      clientCAFile: s('client-ca-file'),
      requestheaderClientCAFile: s('requestheader-client-ca-file'),
      requestheaderAllowedNames: l('requestheader-allowed-names'),
      requestheaderUsernameHeaders: l('requestheader-username-headers'),
      requestheaderGroupHeaders: l('requestheader-group-headers'),
      requestheaderExtraHeadersPrefix: l('requestheader-extra-headers-prefix'),
      authorizationKubeconfig: s('authorization-kubeconfig'),
      authorizationAlwaysAllowPaths: l('authorization-always-allow-paths'),
      authorizedTtlMs: n('authorization-webhook-cache-authorized-ttl'),
      unauthorizedTtlMs: n('authorization-webhook-cache-unauthorized-ttl'),
    },
    profiling: b('profiling'),
    verbosity: n('v'),
    vmodule: s('vmodule'),
    loggingFormat: s('logging-format') as 'text' | 'json',
    controllerConfig: {
      clusterName: s('cluster-name'),
      clusterCIDR: s('cluster-cidr'),
      allocateNodeCIDRs: b('allocate-node-cidrs'),
      configureCloudRoutes: b('configure-cloud-routes'),
      nodeMonitorPeriodMs: n('node-monitor-period'),
      nodeStatusUpdateFrequencyMs: n('node-status-update-frequency'),
      routeReconciliationPeriodMs: n('route-reconciliation-period'),
      concurrentServiceSyncs: n('concurrent-service-syncs'),
      concurrentNodeSyncs: nodeSyncs,
      concurrentNodeStatusUpdates: statusUpdates > 0 ? statusUpdates : nodeSyncs,
      featureGates: effectiveFeatureGates(gates),
    },
    flags: { ...f },
  };
}

/**
 * The gates the controllers see: the known gates' defaults, `AllAlpha=true` turning on every alpha gate not
 * set explicitly (component-base featuregate semantics), then the explicit values. No-op gates are dropped.
 */
function effectiveFeatureGates(given: Readonly<Record<string, boolean>>): Record<string, boolean> {
  const out: Record<string, boolean> = { ...KNOWN_FEATURE_GATES };
  if (given.AllAlpha === true) for (const g of ALPHA_FEATURE_GATES) out[g] = true;
  for (const [g, v] of Object.entries(given)) if (g in KNOWN_FEATURE_GATES) out[g] = v;
  return out;
}

/** The serving settings of the flags with `prefix` (`''` or `'webhook-'`), recording problems by flag name. */
function servingConfig(
  f: Record<string, unknown>,
  prefix: '' | 'webhook-',
  pairName: string,
  problems: string[],
): SecureServingConfig {
  const str = (k: string) => f[`${prefix}${k}`] as string;
  const list = (k: string) => f[`${prefix}${k}`] as string[];
  if ((str('tls-cert-file') === '') !== (str('tls-private-key-file') === '')) {
    problems.push(`--${prefix}tls-cert-file and --${prefix}tls-private-key-file must be given together`);
  }
  for (const check of [
    () => nodeCipherList(list('tls-cipher-suites'), `--${prefix}tls-cipher-suites`),
    () => nodeCurveList(list('tls-curve-preferences'), `--${prefix}tls-curve-preferences`),
  ]) {
    try {
      check();
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return {
    bindAddress: str('bind-address'),
    securePort: f[`${prefix}secure-port`] as number,
    certDir: str('cert-dir'),
    pairName,
    tlsCertFile: str('tls-cert-file'),
    tlsPrivateKeyFile: str('tls-private-key-file'),
    tlsCipherSuites: [...list('tls-cipher-suites')],
    tlsCurvePreferences: [...list('tls-curve-preferences')],
    tlsMinVersion: str('tls-min-version'),
    // Validated when parsed.
    tlsSniCertKeys: list('tls-sni-cert-key').map(parseNamedCertKey),
    permitPortSharing: prefix === '' && f['permit-port-sharing'] === true,
  };
}

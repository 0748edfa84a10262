/**
 * Turns parsed flags into the manager's configuration, validating everything at once
 * (upstream `options.Config` → `Validate` + `ApplyTo`, reference §4.3). All durations are in milliseconds.
 */
import type { CloudControllerConfig } from '@ccm-kit/controllers';
import type { ParsedFlags } from '../flags/flag-set.js';
import { KNOWN_FEATURE_GATES } from './ccm-flags.js';
import { resolveControllerAliases, validateControllerList } from './controller-selection.js';

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

/** HTTPS serving settings (`--bind-address`, `--secure-port`, TLS flags). `securePort` 0 turns serving off. */
export interface SecureServingConfig {
  bindAddress: string;
  securePort: number;
  certDir: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  tlsCipherSuites: string[];
  tlsMinVersion: string;
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
  /** `--webhooks` with aliases resolved. */
  webhooks: string[];
  webhookSecurePort: number;
  webhookBindAddress: string;
  leaderElection: LeaderElectionConfig;
  secureServing: SecureServingConfig;
  auth: AuthConfig;
  profiling: boolean;
  verbosity: number;
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
  if ((s('tls-cert-file') === '') !== (s('tls-private-key-file') === '')) {
    problems.push('--tls-cert-file and --tls-private-key-file must be given together');
  }
  const gates = f['feature-gates'] as Record<string, boolean>;
  for (const g of Object.keys(gates)) {
    if (!(g in KNOWN_FEATURE_GATES)) problems.push(`--feature-gates: unrecognized feature gate: ${g}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const nodeSyncs = n('concurrent-node-syncs');
  const statusUpdates = n('concurrent-node-status-updates');
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
    webhookSecurePort: webhookPort,
    webhookBindAddress: s('webhook-bind-address'),
    leaderElection: {
      leaderElect: b('leader-elect'),
      leaseDurationMs: n('leader-elect-lease-duration'),
      renewDeadlineMs: n('leader-elect-renew-deadline'),
      retryPeriodMs: n('leader-elect-retry-period'),
      resourceLock: s('leader-elect-resource-lock'),
      resourceName: s('leader-elect-resource-name'),
      resourceNamespace: s('leader-elect-resource-namespace'),
    },
    secureServing: {
      bindAddress: s('bind-address'),
      securePort: n('secure-port'),
      certDir: s('cert-dir'),
      tlsCertFile: s('tls-cert-file'),
      tlsPrivateKeyFile: s('tls-private-key-file'),
      tlsCipherSuites: l('tls-cipher-suites'),
      tlsMinVersion: s('tls-min-version'),
    },
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
      featureGates: { ...KNOWN_FEATURE_GATES, ...gates },
    },
    flags: { ...f },
  };
}

/**
 * The cloud-controller-manager's flag sets, with upstream's names, defaults and help text
 * (k8s.io/cloud-provider/options, k8s.io/controller-manager/options, component-base; reference §4.2).
 * Durations are held in milliseconds.
 */
import { FlagSet } from '../flags/flag-set.js';
import { parseNamedCertKey, validateTlsMinVersion } from '../serving/tls-options.js';

/** Known feature gates and their defaults (reference §4.2). */
export const KNOWN_FEATURE_GATES: Readonly<Record<string, boolean>> = Object.freeze({
  CloudControllerManagerWatchBasedRoutesReconciliation: false,
  CloudControllerManagerWebhook: false,
  ControllerManagerReleaseLeaderElectionLockOnExit: false,
});

/**
 * Gates upstream's binary also registers (component-base logging), accepted so that existing manifests keep
 * working; they change nothing in ccm-kit. `AllAlpha`/`AllBeta` are built into every Kubernetes feature gate.
 */
export const ACCEPTED_NO_OP_FEATURE_GATES: Readonly<Record<string, boolean>> = Object.freeze({
  AllAlpha: false,
  AllBeta: false,
  ContextualLogging: true,
  LoggingAlphaOptions: false,
  LoggingBetaOptions: true,
});

/** The alpha gates among {@link KNOWN_FEATURE_GATES} (what `AllAlpha=true` turns on). */
export const ALPHA_FEATURE_GATES: readonly string[] = Object.freeze(Object.keys(KNOWN_FEATURE_GATES));

const portValidator = (flag: string) => (v: number) => {
  if (!Number.isInteger(v) || v < 0 || v > 65535)
    throw new Error(`${flag} must be between 0 and 65535, inclusive`);
};
const nonNegative = (v: number) => {
  if (v < 0) throw new Error('must not be negative');
};
/** Periods of 0 would make the controller poll the cloud in a tight loop (docs/decisions/0101). */
const positivePeriod = (v: number) => {
  if (!(v > 0)) throw new Error('must be greater than zero (0 would poll the cloud in a tight loop)');
};

/** Builds fresh flag sets (one call per parse, so defaults a vendor changes stay local). */
export function cloudControllerManagerFlagSets(): FlagSet[] {
  const generic = new FlagSet('generic')
    .string('cloud-provider', '', 'The provider for cloud services. Empty string for no provider.')
    .string(
      'cloud-config',
      '',
      'The path to the cloud provider configuration file. Empty string for no configuration file.',
    )
    .string('external-cloud-volume-plugin', '', 'The plugin to use when cloud provider is set to external.')
    .bool(
      'use-service-account-credentials',
      false,
      'If true, use individual service account credentials for each controller.',
    )
    .bool(
      'allow-untagged-cloud',
      false,
      'Allow the cluster to run without the cluster-id on cloud instances. This is a legacy mode of operation and a cluster-id will be required in the future.',
      {
        deprecated:
          'This flag is deprecated and will be removed in a future release. A cluster-id will be required on cloud instances.',
      },
    )
    .duration(
      'route-reconciliation-period',
      10_000,
      'The period for reconciling routes created for Nodes by cloud provider.',
      {
        validate: nonNegative,
      },
    )
    .duration(
      'node-monitor-period',
      5_000,
      'The period for syncing NodeStatus in CloudNodeLifecycleController.',
      { validate: positivePeriod },
    )
    .string('cluster-name', 'kubernetes', 'The instance prefix for the cluster.')
    .string(
      'cluster-cidr',
      '',
      'CIDR Range for Pods in cluster. Only used when --allocate-node-cidrs=true; if false, this option will be ignored.',
    )
    .bool('allocate-node-cidrs', false, 'Should CIDRs for Pods be allocated and set on the cloud provider.')
    .string('cidr-allocator-type', 'RangeAllocator', 'Type of CIDR allocator to use')
    .bool(
      'configure-cloud-routes',
      true,
      'Should CIDRs allocated by allocate-node-cidrs be configured on the cloud provider.',
    )
    .duration(
      'node-sync-period',
      0,
      "This flag is deprecated and will be removed in future releases. See node-monitor-period for Node health checking or route-reconciliation-period for cloud provider's route configuration settings.",
      { deprecated: 'This flag is currently no-op and will be deleted.' },
    )
    .duration(
      'min-resync-period',
      12 * 3_600_000,
      'The resync period in reflectors will be random between MinResyncPeriod and 2*MinResyncPeriod.',
    )
    .string(
      'kube-api-content-type',
      'application/vnd.kubernetes.protobuf',
      'Content type of requests sent to apiserver.',
    )
    .float('kube-api-qps', 20, 'QPS to use while talking with kubernetes apiserver.', {
      validate: nonNegative,
    })
    .int('kube-api-burst', 30, 'Burst to use while talking with kubernetes apiserver.', {
      validate: nonNegative,
    })
    .duration('controller-start-interval', 0, 'Interval between starting controller managers.')
    .stringSlice(
      'controllers',
      ['*'],
      "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.",
    )
    .mapStringBool(
      'feature-gates',
      {},
      `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n${Object.entries(
        KNOWN_FEATURE_GATES,
      )
        .map(([k, v]) => `                ${k}=true|false (ALPHA - default=${v})`)
        .join('\n')}`,
    );

  const leaderElection = new FlagSet('leader-election')
    .bool(
      'leader-elect',
      true,
      'Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability.',
    )
    .duration(
      'leader-elect-lease-duration',
      15_000,
      'The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot.',
    )
    .duration(
      'leader-elect-renew-deadline',
      10_000,
      'The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration.',
    )
    .duration(
      'leader-elect-retry-period',
      2_000,
      'The duration the clients should wait between attempting acquisition and renewal of a leadership.',
    )
    .string(
      'leader-elect-resource-lock',
      'leases',
      "The type of resource object that is used for locking during leader election. Supported options are 'leases'.",
    )
    .string(
      'leader-elect-resource-name',
      'cloud-controller-manager',
      'The name of resource object that is used for locking during leader election.',
    )
    .string(
      'leader-elect-resource-namespace',
      'kube-system',
      'The namespace of resource object that is used for locking during leader election.',
    );

  const leaderMigration = new FlagSet('leader-migration')
    .bool('enable-leader-migration', false, 'Whether to enable controller leader migration.')
    .string(
      'leader-migration-config',
      '',
      'Path to the config file for controller leader migration, or empty to use the value that reflects default configuration of the controller manager. The config file should be of type LeaderMigrationConfiguration, group controllermanager.config.k8s.io, version v1alpha1.',
    );

  const debugging = new FlagSet('debugging')
    .bool('profiling', true, 'Enable profiling via web interface host:port/debug/pprof/')
    .bool('contention-profiling', false, 'Enable block profiling, if profiling is enabled');

  const nodeController = new FlagSet('cloud-node-controller')
    .int('concurrent-node-syncs', 1, 'Number of workers concurrently synchronizing nodes.')
    .int(
      'concurrent-node-status-updates',
      0,
      'Number of workers concurrently updating node statuses. If unset or set to 0, --concurrent-node-syncs will be used.',
    );

  const serviceController = new FlagSet('service-lb-controller').int(
    'concurrent-service-syncs',
    1,
    'The number of services that are allowed to sync concurrently. Larger number = more responsive service management, but more CPU (and network) load',
  );

  const webhook = new FlagSet('webhook')
    .stringSlice(
      'webhooks',
      [],
      "A list of webhooks to enable. '*' enables all on-by-default webhooks, 'foo' enables the webhook named 'foo', '-foo' disables the webhook named 'foo'.",
    )
    .string(
      'webhook-bind-address',
      '0.0.0.0',
      'The IP address on which to listen for the --webhook-secure-port port.',
    )
    .int(
      'webhook-secure-port',
      10260,
      "Secure port to serve cloud provider webhooks. If 0, don't serve webhooks at all.",
      {
        validate: portValidator('--webhook-secure-port'),
      },
    )
    .string('webhook-cert-dir', '', 'The directory where the webhook TLS certs are located.')
    .string('webhook-tls-cert-file', '', 'File containing the default x509 Certificate for webhook HTTPS.')
    .string(
      'webhook-tls-private-key-file',
      '',
      'File containing the default x509 private key matching --webhook-tls-cert-file.',
    )
    .stringSlice(
      'webhook-tls-cipher-suites',
      [],
      'Comma-separated list of cipher suites for the server. If omitted, the default cipher suites will be used. Go names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...) as upstream; OpenSSL names are accepted too.',
    )
    .stringSlice(
      'webhook-tls-curve-preferences',
      [],
      'Comma-separated list of elliptic curve IDs (Go tls.CurveID values: 23 P-256, 24 P-384, 25 P-521, 29 X25519, 4588 X25519MLKEM768), in order of preference. If omitted, the default curves will be used.',
    )
    .string(
      'webhook-tls-min-version',
      '',
      'Minimum TLS version supported. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13',
      { validate: validateTlsMinVersion },
    )
    .stringArray(
      'webhook-tls-sni-cert-key',
      [],
      'A pair of x509 certificate and private key file paths, optionally suffixed with a list of domain patterns which are fully qualified domain names, possibly with prefixed wildcard segments. If no domain patterns are provided, the names of the certificate are extracted. Non-wildcard matches trump over wildcard matches, explicit domain patterns trump over extracted names. For multiple key/certificate pairs, use the --webhook-tls-sni-cert-key multiple times. Examples: "example.crt,example.key" or "foo.crt,foo.key:*.foo.com,foo.com".',
      { validate: (v) => void v.map(parseNamedCertKey) },
    )
    .bool(
      'webhook-disable-http2-serving',
      false,
      'If true, HTTP2 serving will be disabled [default=false]. (ccm-kit serves HTTP/1.1 only.)',
    );

  const secureServing = new FlagSet('secure serving')
    .string('bind-address', '0.0.0.0', 'The IP address on which to listen for the --secure-port port.')
    .int(
      'secure-port',
      10258,
      "The port on which to serve HTTPS with authentication and authorization. If 0, don't serve HTTPS at all.",
      {
        validate: portValidator('--secure-port'),
      },
    )
    .string(
      'cert-dir',
      '',
      'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored.',
    )
    .string('tls-cert-file', '', 'File containing the default x509 Certificate for HTTPS.')
    .string(
      'tls-private-key-file',
      '',
      'File containing the default x509 private key matching --tls-cert-file.',
    )
    .stringSlice(
      'tls-cipher-suites',
      [],
      'Comma-separated list of cipher suites for the server. If omitted, the default cipher suites will be used. Go names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...) as upstream; OpenSSL names are accepted too.',
    )
    .stringSlice(
      'tls-curve-preferences',
      [],
      'Comma-separated list of elliptic curve IDs (Go tls.CurveID values: 23 P-256, 24 P-384, 25 P-521, 29 X25519, 4588 X25519MLKEM768), in order of preference. If omitted, the default curves will be used.',
    )
    .string(
      'tls-min-version',
      '',
      'Minimum TLS version supported. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13',
      { validate: validateTlsMinVersion },
    )
    .stringArray(
      'tls-sni-cert-key',
      [],
      'A pair of x509 certificate and private key file paths, optionally suffixed with a list of domain patterns which are fully qualified domain names, possibly with prefixed wildcard segments. If no domain patterns are provided, the names of the certificate are extracted. Non-wildcard matches trump over wildcard matches, explicit domain patterns trump over extracted names. For multiple key/certificate pairs, use the --tls-sni-cert-key multiple times. Examples: "example.crt,example.key" or "foo.crt,foo.key:*.foo.com,foo.com".',
      { validate: (v) => void v.map(parseNamedCertKey) },
    )
    .int(
      'http2-max-streams-per-connection',
      0,
      'The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection.',
    )
    .bool('permit-port-sharing', false, 'If true, SO_REUSEPORT will be used when binding the port.')
    .bool('permit-address-sharing', false, 'If true, SO_REUSEADDR will be used when binding the port.');

  const authentication = new FlagSet('authentication')
    .string(
      'authentication-kubeconfig',
      '',
      "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create tokenreviews.authentication.k8s.io. This is optional. If empty, all token requests are considered to be anonymous and no client CA is looked up in the cluster.",
    )
    .bool(
      'authentication-skip-lookup',
      false,
      'If false, the authentication-kubeconfig will be used to lookup missing authentication configuration from the cluster.',
    )
    .duration(
      'authentication-token-webhook-cache-ttl',
      10_000,
      'The duration to cache responses from the webhook token authenticator.',
    )
    .bool(
      'authentication-tolerate-lookup-failure',
      false,
      'If true, failures to look up missing authentication configuration from the cluster are not considered fatal.',
    )
    .string(
      'client-ca-file',
      '',
      'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.',
    )
    .string(
      'requestheader-client-ca-file',
      '',
      'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers.',
    )
    .stringSlice(
      'requestheader-allowed-names',
      [],
      'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.',
    )
    .stringSlice(
      'requestheader-username-headers',
      ['x-remote-user'],
      'List of request headers to inspect for usernames.',
    )
    .stringSlice('requestheader-uid-headers', [], 'List of request headers to inspect for UIDs.')
    .stringSlice(
      'requestheader-group-headers',
      ['x-remote-group'],
      'List of request headers to inspect for groups.',
    )
    .stringSlice(
      'requestheader-extra-headers-prefix',
      ['x-remote-extra-'],
      'List of request header prefixes to inspect.',
    );

  const authorization = new FlagSet('authorization')
    .string(
      'authorization-kubeconfig',
      '',
      "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create subjectaccessreviews.authorization.k8s.io. This is optional. If empty, all requests not skipped by authorization are forbidden.",
    )
    .duration(
      'authorization-webhook-cache-authorized-ttl',
      10_000,
      "The duration to cache 'authorized' responses from the webhook authorizer.",
    )
    .duration(
      'authorization-webhook-cache-unauthorized-ttl',
      10_000,
      "The duration to cache 'unauthorized' responses from the webhook authorizer.",
    )
    .stringSlice(
      'authorization-always-allow-paths',
      ['/healthz', '/readyz', '/livez'],
      "A list of HTTP paths to skip during authorization, i.e. these are authorized without contacting the 'core' kubernetes server.",
    );

  const misc = new FlagSet('misc')
    .string('master', '', 'The address of the Kubernetes API server (overrides any value in kubeconfig).')
    .string(
      'kubeconfig',
      '',
      'Path to kubeconfig file with authorization and master location information (the master location can be overridden by the master flag).',
    )
    .duration(
      'node-status-update-frequency',
      5 * 60_000,
      "Specifies how often the controller updates nodes' status.",
      { validate: positivePeriod },
    );

  const global = new FlagSet('global')
    .int('v', 0, 'number for the log level verbosity', { shorthand: 'v', validate: nonNegative })
    .string('logging-format', 'text', 'Sets the log format. Permitted formats: "json", "text".', {
      validate: (v) => {
        if (v !== 'text' && v !== 'json')
          throw new Error('unsupported log format; permitted formats: "json", "text"');
      },
    })
    .string('vmodule', '', 'comma-separated list of pattern=N settings for file-filtered logging (only works for text log format)', {
      validate: (v) => {
        for (const item of v.split(',')) {
          if (item === '') continue;
          if (!/^[^=]+=\d+$/.test(item)) throw new Error(`expect comma-separated list of filename=N, got ${JSON.stringify(item)}`);
        }
      },
    })
    .duration('log-flush-frequency', 5_000, 'Maximum number of seconds between log flushes')
    .bool('version', false, 'Print version information and quit')
    .bool('help', false, 'help for cloud-controller-manager', { shorthand: 'h' });

  return [
    generic,
    leaderElection,
    leaderMigration,
    debugging,
    nodeController,
    serviceController,
    webhook,
    secureServing,
    authentication,
    authorization,
    misc,
    global,
  ];
}

/**
 * Upstream's `app`, `options` and `config` tests as acceptance scenarios (upstream `k8s.io/cloud-provider app/controllermanager_test.go and options/options_test.go`): APP-01 … APP-07,
 * OPT-01 … OPT-11 and CFG-01, against ccm-kit's controller registry, flag sets and config builder.
 */
import { builtInControllers } from '@ccm-kit/controllers';
import { createLogger } from '@ccm-kit/runtime';
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../src/flags/flag-set.js';
import { cloudControllerManagerFlagSets } from '../src/options/ccm-flags.js';
import { buildConfig, type KnownNames } from '../src/options/config.js';
import { configzV1alpha1 } from '../src/options/configz.js';
import { validateNodeControllerOptions } from '../src/options/node-controller-options.js';
import { enabledWebhooks, type WebhookConfig } from '../src/index.js';
import { configure } from '../src/options/configure.js';
import { BUILT_IN_KNOWN, CANONICAL } from './known-names.js';

describe('app tests (upstream `k8s.io/cloud-provider app/controllermanager_test.go and options/options_test.go`)', () => {
  it('APP-01 TestCloudControllerNamesConsistency: every default name is lower-case-dashed and ends in -controller', () => {
    expect(builtInControllers.length).toBe(4);
    for (const d of builtInControllers) {
      expect(d.name).toMatch(/^[a-z]([-a-z]*[a-z])?$/);
      expect(d.name.endsWith('-controller')).toBe(true);
    }
  });

  it('APP-02 TestCloudControllerNamesDeclaration: every default name is one of the four canonical names', () => {
    expect(builtInControllers.map((d) => d.name).sort()).toEqual(CANONICAL);
  });

  describe('TestWebhookEnableDisable', () => {
    const handler: WebhookConfig['admissionHandler'] = () => ({ allowed: true });
    const webhooks: Record<string, WebhookConfig> = {
      'webhook-a': { path: '/path/a', admissionHandler: handler },
      'webhook-b': { path: '/path/b', admissionHandler: handler },
    };
    const log = createLogger('webhook-test');
    const enabled = (list: string[]) => Object.keys(enabledWebhooks(webhooks, list, log)).sort();
    it('APP-03 Webhooks Enabled: webhook-a,webhook-b enables both', () => {
      expect(enabled(['webhook-a', 'webhook-b'])).toEqual(['webhook-a', 'webhook-b']);
    });
    it('APP-04 Webhook Not Enabled: [webhook-a] enables a only', () => {
      expect(enabled(['webhook-a'])).toEqual(['webhook-a']);
    });
    it('APP-05 Webhook Disabled (1): [webhook-a, -webhook-b] enables a only', () => {
      expect(enabled(['webhook-a', '-webhook-b'])).toEqual(['webhook-a']);
    });
    it('APP-06 Webhook Disabled (2): [-webhook-b] enables none (no *)', () => {
      expect(enabled(['-webhook-b'])).toEqual([]);
    });
    it('APP-07 Webhooks Enabled Glob: [*] enables both', () => {
      expect(enabled(['*'])).toEqual(['webhook-a', 'webhook-b']);
    });
  });
});

const builtInKnown = BUILT_IN_KNOWN;

function build(argv: string[], known: KnownNames = builtInKnown) {
  return buildConfig(parseFlags(argv, cloudControllerManagerFlagSets()), known);
}

describe('options tests (upstream `k8s.io/cloud-provider app/controllermanager_test.go and options/options_test.go`)', () => {
  it('OPT-01 TestDefaultFlags: the defaults of upstream `k8s.io/cloud-provider options/options.go`', () => {
    const parsed = parseFlags([], cloudControllerManagerFlagSets());
    const v = parsed.values;
    expect(v).toMatchObject({
      'cloud-provider': '',
      'cloud-config': '',
      'external-cloud-volume-plugin': '',
      'use-service-account-credentials': false,
      'allow-untagged-cloud': false,
      'route-reconciliation-period': 10_000,
      'node-monitor-period': 5_000,
      'cluster-name': 'kubernetes',
      'cluster-cidr': '',
      'allocate-node-cidrs': false,
      'cidr-allocator-type': 'RangeAllocator',
      'configure-cloud-routes': true,
      'node-sync-period': 0,
      'min-resync-period': 12 * 3_600_000,
      'kube-api-content-type': 'application/vnd.kubernetes.protobuf',
      'kube-api-qps': 20,
      'kube-api-burst': 30,
      'controller-start-interval': 0,
      controllers: ['*'],
      'leader-elect': true,
      'leader-elect-lease-duration': 15_000,
      'leader-elect-renew-deadline': 10_000,
      'leader-elect-retry-period': 2_000,
      'leader-elect-resource-lock': 'leases',
      'leader-elect-resource-name': 'cloud-controller-manager',
      'leader-elect-resource-namespace': 'kube-system',
      'feature-gates': {},
      profiling: true,
      'contention-profiling': false,
      'enable-leader-migration': false,
      'leader-migration-config': '',
      'concurrent-node-syncs': 1,
      'concurrent-node-status-updates': 0,
      'concurrent-service-syncs': 1,
      webhooks: [],
      'webhook-bind-address': '0.0.0.0',
      'webhook-secure-port': 10260,
      'webhook-disable-http2-serving': false,
      'webhook-cert-dir': '',
      'webhook-tls-cert-file': '',
      'webhook-tls-private-key-file': '',
      'webhook-tls-cipher-suites': [],
      'webhook-tls-curve-preferences': [],
      'webhook-tls-min-version': '',
      'webhook-tls-sni-cert-key': [],
      'bind-address': '0.0.0.0',
      'secure-port': 10258,
      'cert-dir': '',
      'tls-cert-file': '',
      'tls-private-key-file': '',
      'tls-cipher-suites': [],
      'tls-curve-preferences': [],
      'tls-min-version': '',
      'tls-sni-cert-key': [],
      'http2-max-streams-per-connection': 0,
      'permit-port-sharing': false,
      'permit-address-sharing': false,
      'authentication-kubeconfig': '',
      'authentication-skip-lookup': false,
      'authentication-token-webhook-cache-ttl': 10_000,
      'authentication-tolerate-lookup-failure': false,
      'client-ca-file': '',
      'requestheader-client-ca-file': '',
      'requestheader-allowed-names': [],
      'requestheader-username-headers': ['x-remote-user'],
      'requestheader-uid-headers': [],
      'requestheader-group-headers': ['x-remote-group'],
      'requestheader-extra-headers-prefix': ['x-remote-extra-'],
      'authorization-kubeconfig': '',
      'authorization-webhook-cache-authorized-ttl': 10_000,
      'authorization-webhook-cache-unauthorized-ttl': 10_000,
      'authorization-always-allow-paths': ['/healthz', '/readyz', '/livez'],
      master: '',
      kubeconfig: '',
      'node-status-update-frequency': 5 * 60_000,
      v: 0,
      vmodule: '',
      'log-flush-frequency': 5_000,
      version: 'false',
      'disable-http2-serving': false,
      'log-json-split-stream': false,
      'log-text-split-stream': false,
      'log-json-info-buffer-size': '0',
      'log-text-info-buffer-size': '0',
    });
    const c = build(['--cloud-provider=fake']);
    expect(c.secureServing).toMatchObject({
      securePort: 10258,
      bindAddress: '0.0.0.0',
      pairName: 'cloud-controller-manager',
    });
    expect(c.controllerConfig).toMatchObject({
      concurrentNodeSyncs: 1,
      concurrentNodeStatusUpdates: 1,
      concurrentServiceSyncs: 1,
    });
  });

  it('OPT-02 TestAddFlags: parsing the full flag list sets every mapped field', () => {
    const c = build(
      [
        '--allocate-node-cidrs=true',
        '--authorization-always-allow-paths=',
        '--bind-address=192.168.4.10',
        '--cert-dir=/a/b/c',
        '--cloud-config=/cloud-config',
        '--cloud-provider=gce',
        '--cluster-cidr=1.2.3.4/24',
        '--cluster-name=k8s',
        '--configure-cloud-routes=false',
        '--contention-profiling=true',
        '--controller-start-interval=2m',
        '--controllers=foo,bar',
        '--http2-max-streams-per-connection=47',
        '--kube-api-burst=100',
        '--kube-api-content-type=application/json',
        '--kube-api-qps=50.0',
        '--kubeconfig=/kubeconfig',
        '--leader-elect=false',
        '--leader-elect-lease-duration=30s',
        '--leader-elect-renew-deadline=15s',
        '--leader-elect-resource-lock=configmap',
        '--leader-elect-retry-period=5s',
        '--master=192.168.4.20',
        '--min-resync-period=100m',
        '--node-status-update-frequency=10m',
        '--node-monitor-period=10s',
        '--profiling=false',
        '--route-reconciliation-period=30s',
        '--secure-port=10001',
        '--use-service-account-credentials=false',
        '--concurrent-node-syncs=5',
        '--concurrent-service-syncs=3',
        '--webhooks=foo,bar,-baz',
        '--webhook-bind-address=192.168.4.11',
        '--webhook-cert-dir=/a/b/c/d',
        '--webhook-secure-port=10004',
        '--webhook-tls-cert-file=/a/b/c/d/webhook.crt',
        '--webhook-tls-private-key-file=/a/b/c/d/webhook.key',
        '--webhook-tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        '--webhook-tls-curve-preferences=29,23',
        '--webhook-tls-min-version=VersionTLS13',
        '--webhook-tls-sni-cert-key=/a/b/sni.crt,/a/b/sni.key:*.example.com,example.com',
      ],
      { ...builtInKnown, controllers: ['bar', 'foo'], webhooks: ['bar', 'baz', 'foo'] },
    );
    expect(c.auth.authorizationAlwaysAllowPaths).toEqual([]);
    expect(c.secureServing).toMatchObject({ bindAddress: '192.168.4.10', certDir: '/a/b/c', securePort: 10001 });
    expect(c.cloudProvider).toEqual({ name: 'gce', cloudConfigFile: '/cloud-config' });
    expect(c.controllerConfig).toMatchObject({
      allocateNodeCIDRs: true,
      clusterCIDR: '1.2.3.4/24',
      clusterName: 'k8s',
      configureCloudRoutes: false,
      nodeMonitorPeriodMs: 10_000,
      nodeStatusUpdateFrequencyMs: 600_000,
      routeReconciliationPeriodMs: 30_000,
      concurrentNodeSyncs: 5,
      concurrentNodeStatusUpdates: 5,
      concurrentServiceSyncs: 3,
    });
    expect(c.flags['contention-profiling']).toBe(true);
    expect(c.flags['http2-max-streams-per-connection']).toBe(47);
    expect(c.controllerStartIntervalMs).toBe(120_000);
    expect(c.controllers).toEqual(['foo', 'bar']);
    expect([c.kubeApiBurst, c.kubeApiQps, c.kubeApiContentType]).toEqual([100, 50, 'application/json']);
    expect([c.kubeconfig, c.master]).toEqual(['/kubeconfig', '192.168.4.20']);
    expect(c.leaderElection).toEqual({
      leaderElect: false,
      leaseDurationMs: 30_000,
      renewDeadlineMs: 15_000,
      retryPeriodMs: 5_000,
      resourceLock: 'configmap',
      resourceName: 'cloud-controller-manager',
      resourceNamespace: 'kube-system',
    });
    expect(c.minResyncPeriodMs).toBe(6_000_000);
    expect(c.profiling).toBe(false);
    expect(c.useServiceAccountCredentials).toBe(false);
    expect(c.webhooks).toEqual(['foo', 'bar', '-baz']);
    expect(c.webhookServing).toEqual({
      bindAddress: '192.168.4.11',
      securePort: 10004,
      certDir: '/a/b/c/d',
      pairName: 'cloud-controller-manager-webhook',
      tlsCertFile: '/a/b/c/d/webhook.crt',
      tlsPrivateKeyFile: '/a/b/c/d/webhook.key',
      tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'],
      tlsCurvePreferences: ['29', '23'],
      tlsMinVersion: 'VersionTLS13',
      tlsSniCertKeys: [{ certFile: '/a/b/sni.crt', keyFile: '/a/b/sni.key', names: ['*.example.com', 'example.com'] }],
      permitPortSharing: false,
    });
    // CIDRAllocatorType takes the flag default once the flags are defined (pflag writes defaults).
    expect(c.flags['cidr-allocator-type']).toBe('RangeAllocator');
  });

  it('OPT-03 TestCreateConfig: --webhooks with a webhook port yields webhook serving; status updates fall back to syncs', () => {
    const c = build(['--cloud-provider=x', '--webhooks=foo,bar,-baz', '--webhook-secure-port=10300'], {
      ...builtInKnown,
      controllers: ['bar', 'foo'],
      webhooks: ['bar', 'baz', 'foo'],
    });
    expect(c.webhookServing).toBeDefined();
    expect(c.webhookServing?.securePort).toBe(10300);
    expect(c.controllerConfig.concurrentNodeStatusUpdates).toBe(1);
    expect(c.webhooks).toEqual(['foo', 'bar', '-baz']);
  });

  it('OPT-04 TestCreateConfigWithoutWebHooks: no --webhooks means no webhook serving; status updates kept', () => {
    const c = build(['--cloud-provider=x', '--concurrent-node-status-updates=2']);
    expect(c.webhookServing).toBeUndefined();
    expect(c.controllerConfig.concurrentNodeStatusUpdates).toBe(2);
  });

  it('OPT-05 TestCloudControllerManagerAliases: aliases validate and resolve, keeping order and dashes', () => {
    const c = build(
      ['--cloud-provider=x', '--controllers=service-controller,-service,route,-cloud-node-lifecycle-controller'],
      {
        controllers: ['cloud-node-lifecycle-controller', 'route-controller', 'service-controller'],
        controllerAliases: {
          service: 'service-controller',
          route: 'route-controller',
          'cloud-node-lifecycle': 'cloud-node-lifecycle-controller',
        },
        webhooks: [],
      },
    );
    expect(c.controllers).toEqual([
      'service-controller',
      '-service-controller',
      'route-controller',
      '-cloud-node-lifecycle-controller',
    ]);
  });

  describe('TestNodeControllerValidation', () => {
    it('OPT-06 empty options: no errors', () => {
      expect(validateNodeControllerOptions(undefined)).toEqual([]);
    });
    it('OPT-07 concurrent-node-syncs negative value', () => {
      expect(validateNodeControllerOptions({ concurrentNodeSyncs: -5, concurrentNodeStatusUpdates: 0 })).toEqual([
        'concurrent-node-syncs must be a positive number',
      ]);
    });
    it('OPT-08 concurrent-node-syncs zero value', () => {
      expect(validateNodeControllerOptions({ concurrentNodeSyncs: 0, concurrentNodeStatusUpdates: 0 })).toEqual([
        'concurrent-node-syncs must be a positive number',
      ]);
    });
    it('OPT-09 syncs 5, status updates 0: valid', () => {
      expect(validateNodeControllerOptions({ concurrentNodeSyncs: 5, concurrentNodeStatusUpdates: 0 })).toEqual([]);
    });
    it('OPT-10 syncs 5, status updates 5: valid', () => {
      expect(validateNodeControllerOptions({ concurrentNodeSyncs: 5, concurrentNodeStatusUpdates: 5 })).toEqual([]);
    });
    it('OPT-11 status updates -1', () => {
      expect(validateNodeControllerOptions({ concurrentNodeSyncs: 1, concurrentNodeStatusUpdates: -1 })).toEqual([
        'concurrent-node-status-updates cannot be a negative number',
      ]);
    });
    it('ccm-kit applies the validation at start-up (upstream never calls it; decision 0008)', () => {
      expect(() => build(['--cloud-provider=x', '--concurrent-node-syncs=0'])).toThrow(
        '--concurrent-node-syncs must be a positive number',
      );
      expect(() => build(['--cloud-provider=x', '--concurrent-node-status-updates=-1'])).toThrow(
        '--concurrent-node-status-updates cannot be a negative number',
      );
    });
  });
});

describe('command errors (upstream `k8s.io/cloud-provider app/controllermanager.go NewCloudControllerManagerCommand`; upstream `k8s.io/controller-manager app/helper.go IsControllerEnabled`)', () => {
  it('positional arguments are rejected as cobra does', () => {
    expect(() => configure(['--cloud-provider=x', 'a', 'b c'], builtInControllers)).toThrow(
      '"cloud-controller-manager" does not take any arguments, got ["a" "b c"]',
    );
  });

  it("an unknown --controllers entry names the flag, keeps upstream's text and lists the known names", () => {
    expect(() => configure(['--cloud-provider=x', '--controllers=*,-nodes'], builtInControllers)).toThrow(
      '--controllers: "nodes" is not in the list of known controllers (known: cloud-node-controller, cloud-node-lifecycle-controller, node-route-controller, service-lb-controller)',
    );
    expect(() => configure(['--cloud-provider=x', '--webhooks=w'], builtInControllers)).toThrow(
      '--webhooks: "w" is not in the list of known webhooks (no webhooks are registered)',
    );
  });
});

describe('config tests (upstream `k8s.io/cloud-provider app/controllermanager_test.go and options/options_test.go`)', () => {
  it('CFG-01 TestCloudControllerManagerDefaultsRoundTrip: the defaulted v1alpha1 config survives a JSON round trip', () => {
    const obj = configzV1alpha1(build(['--cloud-provider=fake']));
    expect(JSON.parse(JSON.stringify(obj))).toEqual(obj);
    expect(obj).toMatchObject({
      kind: 'CloudControllerManagerConfiguration',
      apiVersion: 'cloudcontrollermanager.config.k8s.io/v1alpha1',
      Generic: {
        Address: '0.0.0.0',
        MinResyncPeriod: '12h0m0s',
        ClientConnection: { contentType: 'application/vnd.kubernetes.protobuf', qps: 20, burst: 30 },
        ControllerStartInterval: '0s',
        LeaderElection: {
          leaderElect: true,
          leaseDuration: '15s',
          renewDeadline: '10s',
          retryPeriod: '2s',
          resourceLock: 'leases',
          resourceName: 'cloud-controller-manager',
          resourceNamespace: 'kube-system',
        },
        Controllers: ['*'],
        Debugging: { enableProfiling: true, enableContentionProfiling: false },
        LeaderMigrationEnabled: false,
      },
      KubeCloudShared: {
        CloudProvider: { Name: 'fake', CloudConfigFile: '' },
        RouteReconciliationPeriod: '10s',
        NodeMonitorPeriod: '5s',
        ClusterName: 'kubernetes',
        ConfigureCloudRoutes: true,
        AllocateNodeCIDRs: false,
        NodeSyncPeriod: '0s',
      },
      NodeController: { ConcurrentNodeSyncs: 1, ConcurrentNodeStatusUpdates: 1 },
      ServiceController: { ConcurrentServiceSyncs: 1 },
      NodeStatusUpdateFrequency: '5m0s',
      Webhook: { Webhooks: null },
    });
  });
});

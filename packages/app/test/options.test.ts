import { describe, expect, it } from 'vitest';
import { parseFlags } from '../src/flags/flag-set.js';
import { cloudControllerManagerFlagSets } from '../src/options/ccm-flags.js';
import { buildConfig, ConfigError } from '../src/options/config.js';
import {
  isControllerEnabled,
  resolveControllerAliases,
  validateControllerList,
} from '../src/options/controller-selection.js';
import { BUILT_IN_KNOWN } from './known-names.js';

const known = BUILT_IN_KNOWN;

const build = (argv: string[]) => buildConfig(parseFlags(argv, cloudControllerManagerFlagSets()), known);

describe('controller selection (upstream `k8s.io/controller-manager app/helper.go IsControllerEnabled`)', () => {
  it('resolves aliases keeping order, duplicates and the leading dash', () => {
    expect(
      resolveControllerAliases(
        ['service-lb-controller', '-service', 'route', '-cloud-node-lifecycle-controller'],
        known.controllerAliases,
      ),
    ).toEqual([
      'service-lb-controller',
      '-service-lb-controller',
      'node-route-controller',
      '-cloud-node-lifecycle-controller',
    ]);
  });

  it('reports unknown names unresolved', () => {
    expect(validateControllerList(['*', '-bogus', 'route'], known.controllers, known.controllerAliases)).toEqual([
      '--controllers: "bogus" is not in the list of known controllers (known: cloud-node-controller, cloud-node-lifecycle-controller, node-route-controller, service-lb-controller)',
    ]);
  });

  it('first explicit entry wins wherever * stands; no * enables nothing else', () => {
    const off = new Set<string>();
    expect(isControllerEnabled('a', off, ['*'])).toBe(true);
    expect(isControllerEnabled('a', off, ['*', '-a'])).toBe(false);
    expect(isControllerEnabled('a', off, ['-a', '*'])).toBe(false);
    expect(isControllerEnabled('a', off, ['a', '-a'])).toBe(true);
    expect(isControllerEnabled('a', off, ['b'])).toBe(false);
    expect(isControllerEnabled('a', off, [])).toBe(false);
    expect(isControllerEnabled('a', new Set(['a']), ['*'])).toBe(false);
    expect(isControllerEnabled('a', new Set(['a']), ['*', 'a'])).toBe(true);
  });
});

describe('buildConfig', () => {
  it('applies upstream defaults', () => {
    const c = build(['--cloud-provider=fake']);
    expect(c.controllers).toEqual(['*']);
    expect(c.kubeApiQps).toBe(20);
    expect(c.kubeApiBurst).toBe(30);
    expect(c.kubeApiContentType).toBe('application/vnd.kubernetes.protobuf');
    expect(c.minResyncPeriodMs).toBe(12 * 3600_000);
    expect(c.leaderElection).toEqual({
      leaderElect: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      resourceLock: 'leases',
      resourceName: 'cloud-controller-manager',
      resourceNamespace: 'kube-system',
    });
    expect(c.secureServing.securePort).toBe(10258);
    expect(c.secureServing.bindAddress).toBe('0.0.0.0');
    expect(c.auth.authorizationAlwaysAllowPaths).toEqual(['/healthz', '/readyz', '/livez']);
    expect(c.controllerConfig).toMatchObject({
      clusterName: 'kubernetes',
      clusterCIDR: '',
      configureCloudRoutes: true,
      allocateNodeCIDRs: false,
      nodeMonitorPeriodMs: 5000,
      nodeStatusUpdateFrequencyMs: 300_000,
      routeReconciliationPeriodMs: 10_000,
      concurrentServiceSyncs: 1,
      concurrentNodeSyncs: 1,
      concurrentNodeStatusUpdates: 1,
    });
    expect(c.controllerConfig.featureGates.CloudControllerManagerWebhook).toBe(false);
    expect(c.webhookServing).toBeUndefined();
  });

  it('falls back to --concurrent-node-syncs for status updates unless set', () => {
    expect(
      build(['--cloud-provider=x', '--concurrent-node-syncs=3']).controllerConfig.concurrentNodeStatusUpdates,
    ).toBe(3);
    expect(
      build(['--cloud-provider=x', '--concurrent-node-syncs=3', '--concurrent-node-status-updates=2']).controllerConfig
        .concurrentNodeStatusUpdates,
    ).toBe(2);
  });

  it('resolves controller aliases', () => {
    expect(build(['--cloud-provider=x', '--controllers=*,-route']).controllers).toEqual([
      '*',
      '-node-route-controller',
    ]);
  });

  it('collects every problem into one ConfigError', () => {
    try {
      build(['--controllers=bogus', '--leader-elect-resource-lock=endpoints', '--webhook-secure-port=10258']);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems).toEqual([
        '--controllers: "bogus" is not in the list of known controllers (known: cloud-node-controller, cloud-node-lifecycle-controller, node-route-controller, service-lb-controller)',
        '--leader-elect-resource-lock: resourceLock value must be "leases"',
        '--cloud-provider cannot be empty: set it to the name your provider registered with registerCloudProvider',
        '--webhook-secure-port cannot be the same value as --secure-port',
      ]);
    }
  });

  it('rejects unknown feature gates and an out-of-range port', () => {
    expect(() => build(['--cloud-provider=x', '--feature-gates=Nope=true'])).toThrow(/unrecognized feature gate: Nope/);
    expect(() => build(['--cloud-provider=x', '--secure-port=70000'])).toThrow(
      /invalid argument "70000" for "--secure-port" flag: --secure-port must be between 0 and 65535/,
    );
  });
});

describe('periods', () => {
  it('refuses a zero or negative --node-monitor-period and --node-status-update-frequency, naming the flag', () => {
    expect(() => build(['--cloud-provider=x', '--node-monitor-period=0s'])).toThrow(
      'invalid argument "0s" for "--node-monitor-period" flag: must be greater than zero',
    );
    expect(() => build(['--cloud-provider=x', '--node-status-update-frequency=-1m'])).toThrow(
      /for "--node-status-update-frequency" flag: must be greater than zero/,
    );
  });
});

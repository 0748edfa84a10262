/**
 * The cloud flags shared by the cloud controllers (`--cloud-provider`, `--cloud-config`, routes and node
 * monitoring periods, cluster name and CIDR). Follows k8s.io/cloud-provider `options/kubecloudshared.go` and
 * `options/cloudprovider.go`; the flags sit in the `generic` help section, as upstream.
 */
import type { CloudControllerConfig } from '@ccm-kit/controllers';
import { bool, type FlagValues, nonNegative, num, type OptionGroup, positivePeriod, str } from './option-group.js';

/** What the group yields. */
export interface KubeCloudSharedConfig {
  /** `--cloud-provider` (the registered name) and `--cloud-config` (a file path, empty for none). */
  cloudProvider: { name: string; cloudConfigFile: string };
  /** `--allow-untagged-cloud` (deprecated): start with a warning instead of failing when the provider has no cluster ID. */
  allowUntaggedCloud: boolean;
  /** `--use-service-account-credentials`: each controller uses its own service account's token. */
  useServiceAccountCredentials: boolean;
  /** The cloud flags the controllers read (cluster name and CIDR, route and node-monitor periods in milliseconds). */
  controllerConfig: Pick<
    CloudControllerConfig,
    | 'clusterName'
    | 'clusterCIDR'
    | 'allocateNodeCIDRs'
    | 'configureCloudRoutes'
    | 'nodeMonitorPeriodMs'
    | 'routeReconciliationPeriodMs'
  >;
}

export const kubeCloudSharedOptions: OptionGroup<KubeCloudSharedConfig> = {
  addFlags(fss) {
    fss
      .flagSet('generic')
      .string('cloud-provider', '', 'The provider for cloud services. Empty string for no provider.')
      .string(
        'cloud-config',
        '',
        'The path to the cloud provider configuration file. Empty string for no configuration file.',
      )
      .string(
        'external-cloud-volume-plugin',
        '',
        'The plugin to use when cloud provider is set to external. Can be empty, should only be set when cloud-provider is external. Currently used to allow node-ipam-controller, persistentvolume-binder-controller, persistentvolume-expander-controller and attach-detach-controller to work for in tree cloud providers.',
      )
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
        { validate: nonNegative },
      )
      .duration('node-monitor-period', 5_000, 'The period for syncing NodeStatus in cloud-node-lifecycle-controller.', {
        validate: positivePeriod,
      })
      .string('cluster-name', 'kubernetes', 'The instance prefix for the cluster.')
      .string(
        'cluster-cidr',
        '',
        'CIDR Range for Pods in cluster. Only used when --allocate-node-cidrs=true; if false, this option will be ignored.',
      )
      .bool(
        'allocate-node-cidrs',
        false,
        'Should CIDRs for Pods be allocated and set on the cloud provider. Requires --cluster-cidr.',
      )
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
      );
  },
  validate(v: FlagValues) {
    return str(v, 'cloud-provider') === ''
      ? ['--cloud-provider cannot be empty: set it to the name your provider registered with registerCloudProvider']
      : [];
  },
  applyTo(v: FlagValues) {
    return {
      cloudProvider: { name: str(v, 'cloud-provider'), cloudConfigFile: str(v, 'cloud-config') },
      allowUntaggedCloud: bool(v, 'allow-untagged-cloud'),
      useServiceAccountCredentials: bool(v, 'use-service-account-credentials'),
      controllerConfig: {
        clusterName: str(v, 'cluster-name'),
        clusterCIDR: str(v, 'cluster-cidr'),
        allocateNodeCIDRs: bool(v, 'allocate-node-cidrs'),
        configureCloudRoutes: bool(v, 'configure-cloud-routes'),
        nodeMonitorPeriodMs: num(v, 'node-monitor-period'),
        routeReconciliationPeriodMs: num(v, 'route-reconciliation-period'),
      },
    };
  },
};

/**
 * The settings of the cloud controllers (`CloudControllerConfig`), as the app builds them from its flags and every
 * controller reads them from its `ControllerContext`. Upstream keeps them in `k8s.io/cloud-provider/config/types.go`
 * (`CloudControllerManagerConfiguration`) and the controllers' own config packages; here one flat object, with
 * durations in milliseconds.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { LoadBalancerGCConfig } from './load-balancer-gc-config.js';
import type { NodeIPAMConfig } from './node-ipam-config.js';

/** The settings of the cloud controllers, with upstream's defaults noted (flags in parentheses). Durations in ms. */
export interface CloudControllerConfig {
  /** `--cluster-name`, default `kubernetes`; passed to LoadBalancer and Routes calls. */
  clusterName: string;
  /** `--cluster-cidr`, comma-separated CIDRs; required by node-route. Default empty. */
  clusterCIDR: string;
  /** `--allocate-node-cidrs`, default false (ignored by node-route, as upstream). */
  allocateNodeCIDRs: boolean;
  /** `--configure-cloud-routes`, default true. */
  configureCloudRoutes: boolean;
  /** `--node-monitor-period` in ms, default 5000 (node-lifecycle period). */
  nodeMonitorPeriodMs: number;
  /** `--node-status-update-frequency` in ms, default 300000 (cloud-node address refresh). */
  nodeStatusUpdateFrequencyMs: number;
  /** `--route-reconciliation-period` in ms, default 10000. */
  routeReconciliationPeriodMs: number;
  /** `--concurrent-service-syncs`, default 1. */
  concurrentServiceSyncs: number;
  /**
   * Beyond upstream: `--host-update-window` in ms. Node changes within this window of the first are merged into
   * one load-balancer host update (docs/decisions/0206-host-update-window.md). Undefined: the service
   * controller's default (100 ms); 0: a node sync at once for every change, as upstream.
   */
  hostUpdateWindowMs?: number;
  /**
   * Beyond upstream: `--service-status-conditions` (default false: upstream writes no condition). The service
   * controller keeps the condition `ccm-kit.io/LoadBalancerServing` on each Service it handles
   * (docs/decisions/0208-service-status-condition.md).
   */
  serviceStatusConditions?: boolean;
  /** `--concurrent-node-syncs`, default 1. */
  concurrentNodeSyncs: number;
  /** `--concurrent-node-status-updates` (upstream ConcurrentNodeStatusUpdates), default 1. */
  concurrentNodeStatusUpdates: number;
  /** Feature gates by name (`--feature-gates`); absent means the gate's default. */
  featureGates: Readonly<Record<string, boolean>>;
  /**
   * Beyond upstream (off by default): serve this loadBalancerClass instead of Services without a class.
   * Undefined means upstream behaviour (only Services with no loadBalancerClass).
   */
  loadBalancerClass?: string;
  /**
   * Beyond upstream (off by default): when set, Nodes for which this returns false (for example a foreign
   * providerID prefix) are ignored by all four controllers.
   */
  nodeOwnership?: (node: V1Node) => boolean;
  /**
   * Beyond upstream: the settings of `service-lb-gc-controller` (`--lb-gc-mode`, `--lb-gc-grace-period`,
   * `--lb-gc-period`); undefined means `defaultLoadBalancerGCConfig` (dry run, 10 min grace, 5 min period).
   */
  loadBalancerGC?: LoadBalancerGCConfig;
  /**
   * The flags of `node-ipam-controller` (`--cidr-allocator-type`, `--service-cluster-ip-range`,
   * `--node-cidr-mask-size`, `-ipv4`, `-ipv6`); undefined means `defaultNodeIPAMConfig` (every flag unset).
   */
  nodeIPAM?: NodeIPAMConfig;
  /**
   * Beyond upstream (off by default): `--out-of-service-taint-after` in ms. When > 0, cloud-node-lifecycle adds
   * `node.kubernetes.io/out-of-service=nodeshutdown:NoExecute` to a Node whose machine it has seen shut down
   * for that long, and removes it once the machine runs (docs/controllers/cloud-node-lifecycle-controller.md).
   * Undefined or 0: upstream behaviour.
   */
  outOfServiceTaintAfterMs?: number;
}

/** The upstream defaults of {@link CloudControllerConfig}. */
export const defaultCloudControllerConfig: Readonly<CloudControllerConfig> = Object.freeze({
  clusterName: 'kubernetes',
  clusterCIDR: '',
  allocateNodeCIDRs: false,
  configureCloudRoutes: true,
  nodeMonitorPeriodMs: 5_000,
  nodeStatusUpdateFrequencyMs: 5 * 60_000,
  routeReconciliationPeriodMs: 10_000,
  concurrentServiceSyncs: 1,
  concurrentNodeSyncs: 1,
  concurrentNodeStatusUpdates: 1,
  featureGates: Object.freeze({}),
});

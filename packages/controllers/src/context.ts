/**
 * What every cloud controller receives when the app starts it, and what it gives back.
 * Follows upstream `k8s.io/cloud-provider/app` (`ControllerContext`, `InitFunc`, `ControllerInitContext`),
 * as idiomatic TypeScript. The app (`@ccm-kit/app`) builds one {@link ControllerContext} per process and calls
 * each enabled {@link ControllerDescriptor.init} on the elected leader.
 */
import type { CloudProvider, ControllerClientBuilder, SharedInformers } from '@ccm-kit/cloud-provider';
import type { Logger } from '@ccm-kit/runtime';
import type { LoadBalancerGCConfig } from './service-lb-gc/config.js';

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
  nodeOwnership?: (node: import('@kubernetes/client-node').V1Node) => boolean;
  /**
   * Beyond upstream: the settings of `service-lb-gc-controller` (`--lb-gc-mode`, `--lb-gc-grace-period`,
   * `--lb-gc-period`); undefined means `defaultLoadBalancerGCConfig` (dry run, 10 min grace, 5 min period).
   */
  loadBalancerGC?: LoadBalancerGCConfig;
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

/** Everything a controller needs, shared by all controllers of one manager. */
export interface ControllerContext {
  /** The provider. Controllers check facet support themselves. */
  readonly cloud: CloudProvider;
  /** Per-controller API clients: `clients.client(clientName, CoreV1Api)`. */
  readonly clients: ControllerClientBuilder;
  /** Shared informers (one watch per resource across controllers); started by the app after every init. */
  readonly informers: SharedInformers;
  /** Controller settings. */
  readonly config: CloudControllerConfig;
  /** Aborts when the manager stops or loses leadership; controllers stop their loops then. */
  readonly signal: AbortSignal;
  /** The manager's logger; controllers derive a named child. */
  readonly logger: Logger;
}

/** What an init function reports. */
export interface ControllerStartResult {
  /** False when the controller chose not to start (for example its cloud facet is unsupported). */
  started: boolean;
  /** Why it did not start; logged by the app as `Skipping "<name>"`. */
  reason?: string;
  /** Resolves when the controller's loops have stopped after the context's signal aborted. */
  done?: Promise<void>;
  /** Optional health check (throws when unhealthy); the app adds a ping check otherwise. */
  healthCheck?: () => void | Promise<void>;
}

/**
 * A controller the manager can run: the four built-ins and any vendor controller.
 * Names should match `^[a-z]([-a-z]*[a-z])?$` and end in `-controller`.
 */
export interface ControllerDescriptor {
  /** Canonical name, selected with `--controllers`. */
  readonly name: string;
  /** Older names accepted by `--controllers` (for example `cloud-node`). */
  readonly aliases?: readonly string[];
  /** The client (service-account) name for its API client and user agent. */
  readonly clientName: string;
  /** True when only an explicit `--controllers=<name>` enables it (not `*`). */
  readonly disabledByDefault?: boolean;
  /**
   * Starts the controller. Returns quickly; the controller's loops run until `ctx.signal` aborts.
   * Throwing is fatal for the whole manager (as upstream's returned init errors); to skip, return `{ started: false, reason }`.
   */
  init(ctx: ControllerContext): Promise<ControllerStartResult>;
}

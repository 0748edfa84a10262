/**
 * The configuration as `/configz` shows it: the external `cloudcontrollermanager.config.k8s.io/v1alpha1`
 * `CloudControllerManagerConfiguration`, under the configz name `cloudcontrollermanager.config.k8s.io`
 * (upstream `k8s.io/cloud-provider api/well_known_*.go`; upstream `k8s.io/cloud-provider app/controllermanager.go Run`; upstream `k8s.io/cloud-provider config/types.go`). Field names follow the Go types' JSON encoding: the cloud-provider and
 * controller-manager structs have no json tags (capitalised names), the component-base ones (client
 * connection, leader election, debugging) do (camelCase). Durations are Go duration strings (`12h0m0s`).
 */
import { formatGoDuration } from '@ccm-kit/runtime';
import type { CloudControllerManagerConfig } from './config.js';

/** The configz registration name. */
export const CONFIGZ_NAME = 'cloudcontrollermanager.config.k8s.io';

/** Go's JSON for a nil-or-empty slice built from flags: `null` when empty. */
const slice = (v: readonly string[]) => (v.length === 0 ? null : [...v]);

/** The v1alpha1 object (with `kind` and `apiVersion`) for `config`. */
export function configzV1alpha1(c: CloudControllerManagerConfig): Record<string, unknown> {
  const f = c.flags as Record<string, unknown>;
  const le = c.leaderElection;
  const cc = c.controllerConfig;
  return {
    kind: 'CloudControllerManagerConfiguration',
    apiVersion: `${CONFIGZ_NAME}/v1alpha1`,
    Generic: {
      Port: 0,
      Address: '0.0.0.0',
      MinResyncPeriod: formatGoDuration(c.minResyncPeriodMs),
      ClientConnection: {
        kubeconfig: c.kubeconfig,
        acceptContentTypes: '',
        contentType: c.kubeApiContentType,
        qps: c.kubeApiQps,
        burst: c.kubeApiBurst,
      },
      ControllerStartInterval: formatGoDuration(c.controllerStartIntervalMs),
      LeaderElection: {
        leaderElect: le.leaderElect,
        leaseDuration: formatGoDuration(le.leaseDurationMs),
        renewDeadline: formatGoDuration(le.renewDeadlineMs),
        retryPeriod: formatGoDuration(le.retryPeriodMs),
        resourceLock: le.resourceLock,
        resourceName: le.resourceName,
        resourceNamespace: le.resourceNamespace,
      },
      Controllers: slice(c.controllers),
      Debugging: {
        enableProfiling: c.profiling,
        enableContentionProfiling: f['contention-profiling'] === true,
      },
      LeaderMigrationEnabled: c.leaderElection.leaderElect && c.leaderMigration.enabled,
      LeaderMigration: { leaderName: '', resourceLock: '', controllerLeaders: null },
    },
    KubeCloudShared: {
      CloudProvider: { Name: c.cloudProvider.name, CloudConfigFile: c.cloudProvider.cloudConfigFile },
      ExternalCloudVolumePlugin: (f['external-cloud-volume-plugin'] as string | undefined) ?? '',
      UseServiceAccountCredentials: c.useServiceAccountCredentials,
      AllowUntaggedCloud: c.allowUntaggedCloud,
      RouteReconciliationPeriod: formatGoDuration(cc.routeReconciliationPeriodMs),
      NodeMonitorPeriod: formatGoDuration(cc.nodeMonitorPeriodMs),
      ClusterName: cc.clusterName,
      ClusterCIDR: cc.clusterCIDR,
      AllocateNodeCIDRs: cc.allocateNodeCIDRs,
      CIDRAllocatorType: (f['cidr-allocator-type'] as string | undefined) ?? '',
      ConfigureCloudRoutes: cc.configureCloudRoutes,
      NodeSyncPeriod: formatGoDuration((f['node-sync-period'] as number | undefined) ?? 0),
    },
    NodeController: {
      ConcurrentNodeSyncs: cc.concurrentNodeSyncs,
      ConcurrentNodeStatusUpdates: cc.concurrentNodeStatusUpdates,
    },
    ServiceController: { ConcurrentServiceSyncs: cc.concurrentServiceSyncs },
    NodeStatusUpdateFrequency: formatGoDuration(cc.nodeStatusUpdateFrequencyMs),
    Webhook: { Webhooks: slice(c.webhooks) },
  };
}

/** The `/configz` body: `{"cloudcontrollermanager.config.k8s.io": <v1alpha1 object>}`. */
export function configzBody(c: CloudControllerManagerConfig): string {
  return JSON.stringify({ [CONFIGZ_NAME]: configzV1alpha1(c) });
}

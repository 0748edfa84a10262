/**
 * The paths of the secure port: /healthz, /livez, /readyz (and `/<endpoint>/<check>`), /metrics and /configz.
 * Upstream's CCM serves only /healthz; ccm-kit adds /livez and /readyz (docs/decisions/0001-health-endpoints.md).
 */
import { type HealthChecks, metricsRegistry } from '@ccm-kit/runtime';
import type { CloudControllerManagerConfig } from '../options/config.js';
import type { RouteHandler } from './secure-server.js';

/** The route table for {@link startSecureServer}. */
export function serviceRoutes(
  health: HealthChecks,
  config: CloudControllerManagerConfig,
): Record<string, RouteHandler> {
  const healthRoute: RouteHandler = async (req, query) => {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    const r = await health.handle(path, query);
    return r
      ? { status: r.status, body: r.body, contentType: r.headers['Content-Type'] }
      : { status: 404, body: '404 page not found\n' };
  };
  return {
    '/healthz': healthRoute,
    '/healthz/': healthRoute,
    '/livez': healthRoute,
    '/livez/': healthRoute,
    '/readyz': healthRoute,
    '/readyz/': healthRoute,
    '/metrics': async () => ({
      status: 200,
      body: await metricsRegistry.metrics(),
      contentType: metricsRegistry.contentType,
    }),
    '/configz': () => ({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({
        'cloudcontrollermanager.config.k8s.io': {
          kind: 'CloudControllerManagerConfiguration',
          apiVersion: 'cloudcontrollermanager.config.k8s.io/v1alpha1',
          ...configz(config),
        },
      }),
    }),
  };
}

function configz(c: CloudControllerManagerConfig): Record<string, unknown> {
  return {
    Generic: {
      ClientConnection: { QPS: c.kubeApiQps, Burst: c.kubeApiBurst, ContentType: c.kubeApiContentType },
      LeaderElection: c.leaderElection,
      Controllers: c.controllers,
      MinResyncPeriod: c.minResyncPeriodMs,
    },
    KubeCloudShared: {
      CloudProvider: { Name: c.cloudProvider.name, CloudConfigFile: c.cloudProvider.cloudConfigFile },
      ClusterName: c.controllerConfig.clusterName,
      ClusterCIDR: c.controllerConfig.clusterCIDR,
      AllocateNodeCIDRs: c.controllerConfig.allocateNodeCIDRs,
      ConfigureCloudRoutes: c.controllerConfig.configureCloudRoutes,
      NodeMonitorPeriod: c.controllerConfig.nodeMonitorPeriodMs,
      RouteReconciliationPeriod: c.controllerConfig.routeReconciliationPeriodMs,
      AllowUntaggedCloud: c.allowUntaggedCloud,
    },
    ServiceController: { ConcurrentServiceSyncs: c.controllerConfig.concurrentServiceSyncs },
    NodeController: {
      ConcurrentNodeSyncs: c.controllerConfig.concurrentNodeSyncs,
      ConcurrentNodeStatusUpdates: c.controllerConfig.concurrentNodeStatusUpdates,
    },
    NodeStatusUpdateFrequency: c.controllerConfig.nodeStatusUpdateFrequencyMs,
  };
}

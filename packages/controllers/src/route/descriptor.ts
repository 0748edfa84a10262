/**
 * The `node-route-controller` descriptor the app starts. Follows upstream `app/core.go`
 * (`startRouteController`): started only when `--configure-cloud-routes` is set and the provider has the
 * Routes facet; a bad `--cluster-cidr` is an init error, fatal for the manager.
 */
import {
  NODE_ROUTE_CONTROLLER,
  ROUTE_CONTROLLER_CLIENT_NAME,
  ROUTE_CONTROLLER_EVENT_SOURCE,
} from '@ccm-kit/cloud-provider';
import type { ControllerContext, ControllerDescriptor, ControllerStartResult } from '../contract/controller-context.js';
import { upstreamAliases } from '../shared/aliases.js';
import { startController } from '../shared/controller-start.js';
import { parseClusterCIDRs } from './cluster-cidrs.js';

/** The alpha gate that switches the controller to Node-event-driven passes (default off). */
export const WATCH_BASED_ROUTES_GATE = 'CloudControllerManagerWatchBasedRoutesReconciliation';

async function init(ctx: ControllerContext): Promise<ControllerStartResult> {
  const log = ctx.logger.with({}, NODE_ROUTE_CONTROLLER);
  const { config } = ctx;
  if (!config.configureCloudRoutes) {
    log.info('Will not configure cloud provider routes, --configure-cloud-routes: false');
    return { started: false, reason: '--configure-cloud-routes is false' };
  }
  const routes = ctx.cloud.routes?.();
  if (!routes) {
    log.warn(
      '--configure-cloud-routes is set, but cloud provider does not support routes. Will not configure cloud provider routes.',
    );
    return { started: false, reason: 'cloud provider does not support routes' };
  }
  const clusterCIDRs = parseClusterCIDRs(config.clusterCIDR);
  const watchBased = config.featureGates[WATCH_BASED_ROUTES_GATE] === true;
  if (!watchBased && !(Number.isFinite(config.routeReconciliationPeriodMs) && config.routeReconciliationPeriodMs > 0)) {
    throw new RangeError(
      `routeReconciliationPeriodMs (--route-reconciliation-period) must be > 0 ms, got ${config.routeReconciliationPeriodMs}`,
    );
  }
  const identity = {
    clientName: nodeRouteController.clientName,
    eventSource: ROUTE_CONTROLLER_EVENT_SOURCE,
    logger: log,
  };
  return startController(ctx, identity, async () => {
    const { NodeRouteController } = await import('./controller.js');
    return (client, recorder) =>
      new NodeRouteController({
        cloud: ctx.cloud,
        client,
        informers: ctx.informers,
        recorder,
        logger: log,
        config: { ...config, clusterCIDRs, watchBased },
      }).run(ctx.signal);
  });
}

/**
 * `node-route-controller` (alias `route`, client `route-controller`): reconciles cloud routes with the Nodes'
 * Pod CIDRs and sets their `NetworkUnavailable` condition. See {@link NodeRouteController}.
 */
export const nodeRouteController: ControllerDescriptor = Object.freeze({
  name: NODE_ROUTE_CONTROLLER,
  aliases: upstreamAliases(NODE_ROUTE_CONTROLLER),
  clientName: ROUTE_CONTROLLER_CLIENT_NAME,
  init,
});

/**
 * The `service-lb-controller` descriptor the app starts. Follows upstream `app/core.go`
 * (`startServiceController`) and `controllers/service/controller.go` (`New`, `Run`): skipped with a log line
 * when the provider has no LoadBalancer facet; otherwise `--concurrent-service-syncs` workers, events from
 * component `service-controller`. The controller builds its `service` and `node` queues itself, as upstream `New`.
 */
import {
  SERVICE_CONTROLLER_CLIENT_NAME,
  SERVICE_CONTROLLER_EVENT_SOURCE,
  SERVICE_LB_CONTROLLER,
} from '@ccm-kit/cloud-provider';
import type { ControllerContext, ControllerDescriptor, ControllerStartResult } from '../contract/controller-context.js';
import { upstreamAliases } from '../shared/aliases.js';
import { startController } from '../shared/controller-start.js';

/** Upstream's reason when the LoadBalancer facet is missing (`the cloud provider does not support external load balancers`). */
export const NO_LOAD_BALANCER_REASON = 'the cloud provider does not support external load balancers';

async function init(ctx: ControllerContext): Promise<ControllerStartResult> {
  const log = ctx.logger.with({}, SERVICE_LB_CONTROLLER);
  const { config } = ctx;
  // A missing accessor, `undefined` (the documented "absent") or a stray `null` all mean no LoadBalancer facet.
  if ((ctx.cloud.loadBalancer?.() ?? undefined) === undefined) {
    log.error(new Error(NO_LOAD_BALANCER_REASON), 'Failed to start service controller');
    return { started: false, reason: NO_LOAD_BALANCER_REASON };
  }
  const identity = {
    clientName: serviceLbController.clientName,
    eventSource: SERVICE_CONTROLLER_EVENT_SOURCE,
    logger: log,
  };
  return startController(ctx, identity, async () => {
    const { ServiceController } = await import('./controller.js');
    return (client, recorder) =>
      new ServiceController({ cloud: ctx.cloud, client, informers: ctx.informers, recorder, logger: log, config }).run(
        ctx.signal,
      );
  });
}

/**
 * `service-lb-controller` (alias `service`, client `service-controller`): one cloud load balancer per
 * `LoadBalancer` Service, with hosts following the Nodes and the ingress written to the Service status.
 * See {@link ServiceController}.
 */
export const serviceLbController: ControllerDescriptor = Object.freeze({
  name: SERVICE_LB_CONTROLLER,
  aliases: upstreamAliases(SERVICE_LB_CONTROLLER),
  clientName: SERVICE_CONTROLLER_CLIENT_NAME,
  init,
});

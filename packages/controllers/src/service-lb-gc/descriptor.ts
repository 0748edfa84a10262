/**
 * The `service-lb-gc-controller` descriptor: off by default (`*` does not enable it), enabled by naming it in
 * `--controllers`. Fails the start, naming the flag and the fix, when its settings are invalid or the provider
 * cannot list its load balancers (docs/controllers/service-lb-gc-controller.md).
 */
import { SERVICE_CONTROLLER_CLIENT_NAME } from '@ccm-kit/cloud-provider';
import type { ControllerContext, ControllerDescriptor, ControllerStartResult } from '../contract/controller-context.js';
import { startController } from '../shared/controller-start.js';
import { defaultLoadBalancerGCConfig, loadBalancerGCConfigProblems } from '../contract/load-balancer-gc-config.js';

/** Canonical name, selected with `--controllers`. */
export const SERVICE_LB_GC_CONTROLLER = 'service-lb-gc-controller';
/** The `source.component` of its Events. */
const SERVICE_LB_GC_CONTROLLER_EVENT_SOURCE = 'service-lb-gc-controller';

/** A start-up problem of the collector; fatal for the manager. */
class LoadBalancerGCStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoadBalancerGCStartError';
  }
}

async function init(ctx: ControllerContext): Promise<ControllerStartResult> {
  const log = ctx.logger.with({}, SERVICE_LB_GC_CONTROLLER);
  const config = ctx.config.loadBalancerGC ?? defaultLoadBalancerGCConfig;
  const problems = loadBalancerGCConfigProblems(config);
  if (problems.length > 0) throw new LoadBalancerGCStartError(problems.join('; '));
  const lb = ctx.cloud.loadBalancer?.() ?? undefined;
  const provider = JSON.stringify(ctx.cloud.providerName());
  if (lb === undefined) {
    throw new LoadBalancerGCStartError(
      `--controllers enables ${SERVICE_LB_GC_CONTROLLER}, but provider ${provider} has no LoadBalancer facet; remove ${SERVICE_LB_GC_CONTROLLER} from --controllers`,
    );
  }
  if (typeof lb.listLoadBalancers !== 'function') {
    throw new LoadBalancerGCStartError(
      `--controllers enables ${SERVICE_LB_GC_CONTROLLER}, but provider ${provider} does not implement LoadBalancer.listLoadBalancers; implement it (docs/interfaces/load-balancer.md) or remove ${SERVICE_LB_GC_CONTROLLER} from --controllers`,
    );
  }
  const identity = {
    clientName: serviceLbGcController.clientName,
    eventSource: SERVICE_LB_GC_CONTROLLER_EVENT_SOURCE,
    logger: log,
  };
  return startController(ctx, identity, async () => {
    const { LoadBalancerCollector } = await import('./controller.js');
    return (client, recorder) =>
      new LoadBalancerCollector({
        cloud: ctx.cloud,
        client,
        informers: ctx.informers,
        recorder,
        logger: log,
        config: { ...ctx.config, loadBalancerGC: config },
      }).run(ctx.signal);
  });
}

/**
 * `service-lb-gc-controller` (client `service-controller`, off by default): finds the load balancers whose
 * Service is gone and reports them, or deletes them with `--lb-gc-mode=delete`. See {@link LoadBalancerCollector}.
 */
export const serviceLbGcController: ControllerDescriptor = Object.freeze({
  name: SERVICE_LB_GC_CONTROLLER,
  clientName: SERVICE_CONTROLLER_CLIENT_NAME,
  disabledByDefault: true,
  init,
});

/**
 * `mockcloud-tagger-controller`: the example's vendor controller, registered with the manager as a
 * {@link ControllerDescriptor}. Disabled by default; enable it with
 * `--controllers=*,mockcloud-tagger-controller` (or the alias `mockcloud-tagger`). It runs on the leader
 * only, shares the manager's Node informer, and reports unhealthy after three failed passes in a row.
 */
import type { ControllerContext, ControllerDescriptor, ControllerStartResult } from '@ccm-kit/controllers';
import { MockCloudProvider } from '../provider/cloud.js';
import { TaggerController } from './controller.js';

/** The controller's name for `--controllers`. */
export const MOCKCLOUD_TAGGER_CONTROLLER = 'mockcloud-tagger-controller';
/** Its client (and user-agent) name. */
export const MOCKCLOUD_TAGGER_CLIENT_NAME = 'mockcloud-tagger';
/** Failed passes in a row after which the health check fails. */
const UNHEALTHY_AFTER_FAILURES = 3;

async function init(ctx: ControllerContext): Promise<ControllerStartResult> {
  const log = ctx.logger.with({}, MOCKCLOUD_TAGGER_CONTROLLER);
  if (!(ctx.cloud instanceof MockCloudProvider)) {
    const reason = `the cloud provider is ${ctx.cloud.providerName()}, not mockcloud`;
    log.warn('Not starting the tagger', { reason });
    return { started: false, reason };
  }
  const cloud = ctx.cloud;
  const controller = new TaggerController({
    client: cloud.client,
    nodes: ctx.informers.nodes(),
    clusterID: cloud.config.clusterID,
    periodMs: cloud.config.tagger.periodMs,
    logger: log,
  });
  return {
    started: true,
    done: controller.run(ctx.signal),
    healthCheck: () => {
      if (controller.consecutiveFailures >= UNHEALTHY_AFTER_FAILURES) {
        throw new Error(`${MOCKCLOUD_TAGGER_CONTROLLER}: ${controller.consecutiveFailures} passes failed in a row`);
      }
    },
  };
}

/** The tagger's descriptor: pass it to `runCloudControllerManager({ controllers: [taggerController] })`. */
export const taggerController: ControllerDescriptor = Object.freeze({
  name: MOCKCLOUD_TAGGER_CONTROLLER,
  aliases: Object.freeze([MOCKCLOUD_TAGGER_CLIENT_NAME]),
  clientName: MOCKCLOUD_TAGGER_CLIENT_NAME,
  disabledByDefault: true,
  init,
});

/**
 * The `cloud-node-controller` descriptor the app starts. Follows upstream `app/core.go`
 * (`startCloudNodeController`): skipped with a warning when the provider supports neither InstancesV2 nor
 * Instances; otherwise built with `--node-status-update-frequency`, `--concurrent-node-syncs` and
 * `--concurrent-node-status-updates`, its events sent as component `cloud-node-controller`.
 */
import {
  CLOUD_NODE_CONTROLLER,
  CLOUD_NODE_CONTROLLER_EVENT_SOURCE,
  NODE_CONTROLLER_CLIENT_NAME,
} from '@ccm-kit/cloud-provider';
import { CoreV1Client } from '@ccm-kit/runtime/client';
import type { ControllerContext, ControllerDescriptor, ControllerStartResult } from '../context.js';
import { startWithEventRecorder } from '../shared/event-recording.js';
import { CloudNodeController } from './controller.js';

const NO_INSTANCES = 'cloud provider does not support instances';

async function init(ctx: ControllerContext): Promise<ControllerStartResult> {
  const log = ctx.logger.with({}, CLOUD_NODE_CONTROLLER);
  if (!ctx.cloud.instancesV2?.() && !ctx.cloud.instances?.()) {
    log.warn('Failed to start cloud node controller', { err: NO_INSTANCES });
    return { started: false, reason: NO_INSTANCES };
  }
  const client = ctx.clients.client(NODE_CONTROLLER_CLIENT_NAME, CoreV1Client);
  return startWithEventRecorder(client, CLOUD_NODE_CONTROLLER_EVENT_SOURCE, log, (recorder) =>
    new CloudNodeController({
      cloud: ctx.cloud,
      client,
      informers: ctx.informers,
      recorder,
      logger: log,
      config: ctx.config,
    }).run(ctx.signal),
  );
}

/**
 * `cloud-node-controller` (alias `cloud-node`, client `node-controller`): initializes Nodes that carry the
 * uninitialized taint and refreshes their addresses. See {@link CloudNodeController}.
 */
export const cloudNodeController: ControllerDescriptor = Object.freeze({
  name: CLOUD_NODE_CONTROLLER,
  aliases: Object.freeze(['cloud-node']),
  clientName: NODE_CONTROLLER_CLIENT_NAME,
  init,
});

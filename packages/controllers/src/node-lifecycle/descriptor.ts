/**
 * The `cloud-node-lifecycle-controller` descriptor the app starts. Follows upstream `app/core.go`
 * (`startCloudNodeLifecycleController`): skipped with a warning when the provider supports neither
 * InstancesV2 nor Instances; otherwise built with `--node-monitor-period`, its events sent as component
 * `cloud-node-lifecycle-controller`.
 */
import {
  CLOUD_NODE_LIFECYCLE_CONTROLLER,
  CLOUD_NODE_LIFECYCLE_CONTROLLER_EVENT_SOURCE,
  NODE_CONTROLLER_CLIENT_NAME,
} from '@ccm-kit/cloud-provider';
import { CoreV1Client } from '@ccm-kit/runtime/client';
import type { ControllerContext, ControllerDescriptor, ControllerStartResult } from '../context.js';
import { startWithEventRecorder } from '../shared/event-recording.js';
import { CloudNodeLifecycleController } from './controller.js';

const NO_INSTANCES = 'cloud provider does not support instances';

async function init(ctx: ControllerContext): Promise<ControllerStartResult> {
  const log = ctx.logger.with({}, CLOUD_NODE_LIFECYCLE_CONTROLLER);
  if (!ctx.cloud.instancesV2?.() && !ctx.cloud.instances?.()) {
    log.warn('Failed to start cloud node lifecycle controller', { err: NO_INSTANCES });
    return { started: false, reason: NO_INSTANCES };
  }
  const client = ctx.clients.client(NODE_CONTROLLER_CLIENT_NAME, CoreV1Client);
  return startWithEventRecorder(client, CLOUD_NODE_LIFECYCLE_CONTROLLER_EVENT_SOURCE, log, (recorder) =>
    new CloudNodeLifecycleController({
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
 * `cloud-node-lifecycle-controller` (alias `cloud-node-lifecycle`, client `node-controller`): deletes Nodes
 * whose instance is gone and taints shut-down ones. See {@link CloudNodeLifecycleController}.
 */
export const cloudNodeLifecycleController: ControllerDescriptor = Object.freeze({
  name: CLOUD_NODE_LIFECYCLE_CONTROLLER,
  aliases: Object.freeze(['cloud-node-lifecycle']),
  clientName: NODE_CONTROLLER_CLIENT_NAME,
  init,
});

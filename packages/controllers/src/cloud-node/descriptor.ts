/**
 * The `cloud-node-controller` descriptor the app starts. Follows upstream `app/core.go`
 * (`startCloudNodeController`): skipped with a warning when the provider supports neither InstancesV2 nor
 * Instances; otherwise built with `--node-status-update-frequency`, `--concurrent-node-syncs` and
 * `--concurrent-node-status-updates`, its events sent as component `cloud-node-controller`.
 */
import { CLOUD_NODE_CONTROLLER, CLOUD_NODE_CONTROLLER_EVENT_SOURCE } from '@ccm-kit/cloud-provider';
import type { ControllerDescriptor } from '../contract/controller-context.js';
import { nodeControllerDescriptor } from '../shared/node-controller-descriptor.js';

/**
 * `cloud-node-controller` (alias `cloud-node`, client `node-controller`): initializes Nodes that carry the
 * uninitialized taint and refreshes their addresses. See {@link CloudNodeController}.
 */
export const cloudNodeController: ControllerDescriptor = nodeControllerDescriptor({
  name: CLOUD_NODE_CONTROLLER,
  eventSource: CLOUD_NODE_CONTROLLER_EVENT_SOURCE,
  skippedMessage: 'Failed to start cloud node controller',
  load: async () => {
    const { CloudNodeController } = await import('./controller.js');
    return (options, signal) => new CloudNodeController(options).run(signal);
  },
});

/**
 * The `cloud-node-lifecycle-controller` descriptor the app starts. Follows upstream `app/core.go`
 * (`startCloudNodeLifecycleController`): skipped with a warning when the provider supports neither
 * InstancesV2 nor Instances; otherwise built with `--node-monitor-period`, its events sent as component
 * `cloud-node-lifecycle-controller`.
 */
import { CLOUD_NODE_LIFECYCLE_CONTROLLER, CLOUD_NODE_LIFECYCLE_CONTROLLER_EVENT_SOURCE } from '@ccm-kit/cloud-provider';
import type { ControllerDescriptor } from '../contract/controller-context.js';
import { nodeControllerDescriptor } from '../shared/node-controller-descriptor.js';

/**
 * `cloud-node-lifecycle-controller` (alias `cloud-node-lifecycle`, client `node-controller`): deletes Nodes
 * whose instance is gone and taints shut-down ones. See {@link CloudNodeLifecycleController}.
 */
export const cloudNodeLifecycleController: ControllerDescriptor = nodeControllerDescriptor({
  name: CLOUD_NODE_LIFECYCLE_CONTROLLER,
  eventSource: CLOUD_NODE_LIFECYCLE_CONTROLLER_EVENT_SOURCE,
  skippedMessage: 'Failed to start cloud node lifecycle controller',
  load: async () => {
    const { CloudNodeLifecycleController } = await import('./controller.js');
    return (options, signal) => new CloudNodeLifecycleController(options).run(signal);
  },
});

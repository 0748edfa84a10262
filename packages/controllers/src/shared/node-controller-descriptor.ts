/**
 * What the two Node controllers' descriptors share. Follows upstream `app/core.go` (`startCloudNodeController`,
 * `startCloudNodeLifecycleController`): the controller is skipped with a warning when the provider supports neither
 * InstancesV2 nor Instances; otherwise it is built on the `node-controller` client, with its own event broadcaster.
 */
import { NODE_CONTROLLER_CLIENT_NAME } from '@ccm-kit/cloud-provider';
import type { CoreV1Client } from '@ccm-kit/runtime/client';
import type { CloudControllerConfig } from '../contract/controller-config.js';
import type { ControllerContext, ControllerDescriptor, ControllerStartResult } from '../contract/controller-context.js';
import type { ControllerOptions } from '../contract/controller-options.js';
import { upstreamAliases } from './aliases.js';
import { startController } from './controller-start.js';

const NO_INSTANCES = 'cloud provider does not support instances';

/** A Node controller as its descriptor builds it. */
export interface NodeControllerParts {
  /** Canonical name, for example `cloud-node-controller`. */
  name: string;
  /** The `source.component` of its Events. */
  eventSource: string;
  /** The warning logged when it is skipped, as upstream: `Failed to start cloud node controller`. */
  skippedMessage: string;
  /**
   * Loads the controller's module (a dynamic import, so that reading the descriptor loads no controller) and
   * answers the function that builds the controller from `options` and runs it until `signal` (the context's) aborts.
   */
  load(): Promise<NodeControllerRun>;
}

/** Builds a Node controller from `options` and runs it until `signal` aborts. */
export type NodeControllerRun = (
  options: ControllerOptions<CoreV1Client, CloudControllerConfig>,
  signal: AbortSignal,
) => Promise<void>;

/**
 * The descriptor of a Node controller: name, upstream aliases, client `node-controller`, and an `init` that
 * skips it (`{ started: false, reason: 'cloud provider does not support instances' }`) without an instances facet.
 */
export function nodeControllerDescriptor(parts: NodeControllerParts): ControllerDescriptor {
  async function init(ctx: ControllerContext): Promise<ControllerStartResult> {
    const log = ctx.logger.with({}, parts.name);
    if (!ctx.cloud.instancesV2?.() && !ctx.cloud.instances?.()) {
      log.warn(parts.skippedMessage, { err: NO_INSTANCES });
      return { started: false, reason: NO_INSTANCES };
    }
    const identity = { clientName: NODE_CONTROLLER_CLIENT_NAME, eventSource: parts.eventSource, logger: log };
    return startController(ctx, identity, async () => {
      const run = await parts.load();
      return (client, recorder) =>
        run(
          { cloud: ctx.cloud, client, informers: ctx.informers, recorder, logger: log, config: ctx.config },
          ctx.signal,
        );
    });
  }
  return Object.freeze({
    name: parts.name,
    aliases: upstreamAliases(parts.name),
    clientName: NODE_CONTROLLER_CLIENT_NAME,
    init,
  });
}

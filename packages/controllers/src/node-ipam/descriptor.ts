/**
 * The `node-ipam-controller` descriptor: off by default, enabled by naming it (or its alias `nodeipam`) in
 * `--controllers`, and started only with `--allocate-node-cidrs=true`, as upstream's sample CCM
 * (`cmd/cloud-controller-manager/nodeipamcontroller.go`, `startNodeIpamController`). Bad flags are start errors
 * naming the flag (docs/controllers/node-ipam-controller.md).
 */
import { NODE_CONTROLLER_CLIENT_NAME } from '@ccm-kit/cloud-provider';
import type { ControllerContext, ControllerDescriptor, ControllerStartResult } from '../contract/controller-context.js';
import { defaultNodeIPAMConfig } from '../contract/node-ipam-config.js';
import { startController } from '../shared/controller-start.js';
import { nodeIPAMParams } from './config.js';

/** Canonical name, selected with `--controllers` (upstream `names.NodeIpamController`). */
export const NODE_IPAM_CONTROLLER = 'node-ipam-controller';
/** The `source.component` of its Events (upstream's range allocator recorder). */
export const NODE_IPAM_EVENT_SOURCE = 'cidrAllocator';

async function init(ctx: ControllerContext): Promise<ControllerStartResult> {
  const log = ctx.logger.with({}, NODE_IPAM_CONTROLLER);
  if (!ctx.config.allocateNodeCIDRs) {
    log.info('Will not allocate node CIDRs, --allocate-node-cidrs: false');
    return { started: false, reason: '--allocate-node-cidrs is false' };
  }
  const params = nodeIPAMParams(ctx.config.clusterCIDR, ctx.config.nodeIPAM ?? defaultNodeIPAMConfig);
  const identity = { clientName: nodeIpamController.clientName, eventSource: NODE_IPAM_EVENT_SOURCE, logger: log };
  return startController(ctx, identity, async () => {
    const { NodeIPAMController } = await import('./controller.js');
    return (client, recorder) =>
      new NodeIPAMController({ client, informers: ctx.informers, recorder, logger: log, config: params }).run(
        ctx.signal,
      );
  });
}

/**
 * `node-ipam-controller` (alias `nodeipam`, client `node-controller`, off by default): sets `spec.podCIDRs` of
 * Nodes that have none from `--cluster-cidr`. See {@link NodeIPAMController}.
 */
export const nodeIpamController: ControllerDescriptor = Object.freeze({
  name: NODE_IPAM_CONTROLLER,
  aliases: Object.freeze(['nodeipam']),
  clientName: NODE_CONTROLLER_CLIENT_NAME,
  disabledByDefault: true,
  init,
});

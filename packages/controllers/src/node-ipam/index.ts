/** node-ipam-controller: the range allocator of Pod CIDRs (docs/controllers/node-ipam-controller.md). */
export {
  DEFAULT_NODE_CIDR_MASK_SIZE_IPV4,
  DEFAULT_NODE_CIDR_MASK_SIZE_IPV6,
  defaultNodeIPAMConfig,
  type NodeIPAMConfig,
  RANGE_ALLOCATOR,
  serviceClusterIPRangeProblems,
} from '../contract/node-ipam-config.js';
export { NODE_IPAM_CONTROLLER, nodeIpamController } from './descriptor.js';

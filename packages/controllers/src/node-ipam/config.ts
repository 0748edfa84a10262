/**
 * node-ipam-controller's checks at start (its flags are `contract/node-ipam-config.ts`). Follows upstream
 * `cmd/cloud-controller-manager/nodeipamcontroller.go` (`startNodeIpamController`, `processCIDRs`,
 * `setNodeCIDRMaskSizes`), `cmd/kube-controller-manager/app/options/nodeipamcontroller.go` (the flags) and
 * `pkg/controller/nodeipam/node_ipam_controller.go` (`NewNodeIpamController`'s mask check). Every problem is a
 * start error naming the flag and the fix; upstream only logs a `--service-cluster-ip-range` it cannot parse,
 * ccm-kit refuses to start (docs/decisions/0104-node-ipam-never-shares-a-cidr.md).
 */
import { type CIDR, parseCIDR } from '@ccm-kit/cloud-provider';
import {
  DEFAULT_NODE_CIDR_MASK_SIZE_IPV4,
  DEFAULT_NODE_CIDR_MASK_SIZE_IPV6,
  type NodeIPAMConfig,
  RANGE_ALLOCATOR,
  serviceClusterIPRangeProblems,
} from '../contract/node-ipam-config.js';
import { parseClusterCIDRs } from '../route/cluster-cidrs.js';
import { IPV6_MAX_MASK_DIFF } from './cidr-set.js';

/** What the allocator is built from. */
export interface NodeIPAMParams {
  clusterCIDRs: CIDR[];
  nodeCIDRMaskSizes: number[];
  serviceCIDRs: CIDR[];
}

/** A setting node-ipam-controller cannot start with; fatal for the manager, as upstream's start errors. */
export class NodeIPAMConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeIPAMConfigError';
  }
}

/**
 * The node block sizes for each cluster CIDR (upstream `setNodeCIDRMaskSizes`).
 * @throws NodeIPAMConfigError with upstream's message for a flag that does not fit the cluster's families.
 */
function nodeCIDRMaskSizes(config: NodeIPAMConfig, clusterCIDRs: readonly CIDR[]): number[] {
  const { nodeCIDRMaskSize: any, nodeCIDRMaskSizeIPv4: v4, nodeCIDRMaskSizeIPv6: v6 } = config;
  let ipv4 = DEFAULT_NODE_CIDR_MASK_SIZE_IPV4;
  let ipv6 = DEFAULT_NODE_CIDR_MASK_SIZE_IPV6;
  const sizes = () => clusterCIDRs.map((c) => (c.family === 6 ? ipv6 : ipv4));
  if (clusterCIDRs.length > 1) {
    if (any !== 0) {
      throw new NodeIPAMConfigError(
        'usage of --node-cidr-mask-size is not allowed with dual-stack clusters; use --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6',
      );
    }
    if (v4 !== 0) ipv4 = v4;
    if (v6 !== 0) ipv6 = v6;
    return sizes();
  }
  if (any !== 0) {
    if (v4 !== 0 || v6 !== 0) {
      throw new NodeIPAMConfigError(
        'usage of --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 is not allowed if --node-cidr-mask-size is set. For dual-stack clusters please unset it and use IPFamily specific flags',
      );
    }
    ipv4 = ipv6 = any;
    return sizes();
  }
  const singleStackIPv6 = clusterCIDRs[0]!.family === 6;
  if (v4 !== 0) {
    if (singleStackIPv6) {
      throw new NodeIPAMConfigError(
        'usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster',
      );
    }
    ipv4 = v4;
  }
  if (v6 !== 0) {
    if (!singleStackIPv6) {
      throw new NodeIPAMConfigError(
        'usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster',
      );
    }
    ipv6 = v6;
  }
  return sizes();
}

/**
 * Checks the settings and computes the pools.
 * @param clusterCIDR `--cluster-cidr`.
 * @throws NodeIPAMConfigError naming the flag: an allocator type other than `RangeAllocator`, an empty or
 *   unparsable `--cluster-cidr`, three families or two of one, a mask flag that does not fit the families, a
 *   node mask shorter than its cluster CIDR's prefix or longer than the family's width, an IPv6 node mask
 *   more than 16 bits longer than the cluster prefix, or a bad `--service-cluster-ip-range`.
 */
export function nodeIPAMParams(clusterCIDR: string, config: NodeIPAMConfig): NodeIPAMParams {
  if (config.cidrAllocatorType !== RANGE_ALLOCATOR) {
    throw new NodeIPAMConfigError(
      `invalid CIDR allocator type: ${config.cidrAllocatorType}; node-ipam-controller implements --cidr-allocator-type=${RANGE_ALLOCATOR} only`,
    );
  }
  if (clusterCIDR.trim() === '') {
    throw new NodeIPAMConfigError(
      'Controller: Must specify --cluster-cidr if --allocate-node-cidrs is set (one CIDR, or an IPv4 and an IPv6 one, comma-separated)',
    );
  }
  let clusterCIDRs: CIDR[];
  try {
    clusterCIDRs = parseClusterCIDRs(clusterCIDR);
  } catch (err) {
    throw new NodeIPAMConfigError((err as Error).message);
  }
  const sizes = nodeCIDRMaskSizes(config, clusterCIDRs);
  clusterCIDRs.forEach((c, i) => {
    const size = sizes[i]!;
    const flag =
      clusterCIDRs.length > 1 || config.nodeCIDRMaskSize === 0
        ? `--node-cidr-mask-size-ipv${c.family}`
        : '--node-cidr-mask-size';
    const width = c.family === 4 ? 32 : 128;
    if (c.prefix > size || size > width) {
      throw new NodeIPAMConfigError(
        `Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family: ${c.text} has /${c.prefix}, ${flag} is ${size}; set ${flag} between ${c.prefix} and ${width}`,
      );
    }
    if (c.family === 6 && size - c.prefix > IPV6_MAX_MASK_DIFF) {
      throw new NodeIPAMConfigError(
        `New CIDR set failed; the node CIDR size is too big: ${flag}=${size} is more than ${IPV6_MAX_MASK_DIFF} bits longer than the /${c.prefix} of ${c.text}; set ${flag} to at most ${c.prefix + IPV6_MAX_MASK_DIFF}`,
      );
    }
  });
  const problems = serviceClusterIPRangeProblems(config.serviceClusterIPRange);
  if (problems.length > 0) throw new NodeIPAMConfigError(problems.join('; '));
  const serviceCIDRs =
    config.serviceClusterIPRange.trim() === ''
      ? []
      : config.serviceClusterIPRange.split(',').map((s) => parseCIDR(s.trim()));
  return { clusterCIDRs, nodeCIDRMaskSizes: sizes, serviceCIDRs };
}

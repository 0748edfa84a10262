/**
 * The flags of `node-ipam-controller` (`--cidr-allocator-type`, `--service-cluster-ip-range`,
 * `--node-cidr-mask-size`, `-ipv4`, `-ipv6`), as upstream's `NodeIPAMControllerOptions`
 * (`cmd/kube-controller-manager/app/options/nodeipamcontroller.go`), and the check the app runs on them while
 * reading flags (docs/controllers/node-ipam-controller.md).
 */
import { type CIDR, parseCIDR } from '@ccm-kit/cloud-provider';

/** The allocator node-ipam-controller implements (`--cidr-allocator-type`). */
export const RANGE_ALLOCATOR = 'RangeAllocator';
/** Upstream's default IPv4 node block size (`defaultNodeMaskCIDRIPv4`): /24. */
export const DEFAULT_NODE_CIDR_MASK_SIZE_IPV4 = 24;
/** Upstream's default IPv6 node block size (`defaultNodeMaskCIDRIPv6`): /64. */
export const DEFAULT_NODE_CIDR_MASK_SIZE_IPV6 = 64;

/** The flags of node-ipam-controller (0 = the flag is not set, as upstream's int32 zero values). */
export interface NodeIPAMConfig {
  /** `--cidr-allocator-type`, default `RangeAllocator` (the only one implemented). */
  cidrAllocatorType: string;
  /** `--service-cluster-ip-range`: one CIDR, or two of different families, comma-separated; empty for none. */
  serviceClusterIPRange: string;
  /** `--node-cidr-mask-size` (single-stack only; 0 = unset). */
  nodeCIDRMaskSize: number;
  /** `--node-cidr-mask-size-ipv4` (0 = unset: 24). */
  nodeCIDRMaskSizeIPv4: number;
  /** `--node-cidr-mask-size-ipv6` (0 = unset: 64). */
  nodeCIDRMaskSizeIPv6: number;
}

/** Upstream's defaults: every flag unset. */
export const defaultNodeIPAMConfig: Readonly<NodeIPAMConfig> = Object.freeze({
  cidrAllocatorType: RANGE_ALLOCATOR,
  serviceClusterIPRange: '',
  nodeCIDRMaskSize: 0,
  nodeCIDRMaskSizeIPv4: 0,
  nodeCIDRMaskSizeIPv6: 0,
});

/**
 * Problems of `--service-cluster-ip-range` found while parsing flags (upstream `NodeIPAMControllerOptions.Validate`
 * plus the parse and dual-stack checks of `startNodeIpamController`).
 */
export function serviceClusterIPRangeProblems(value: string): string[] {
  if (value.trim() === '') return [];
  const items = value.split(',');
  if (items.length > 2) return ['--service-cluster-ip-range can not contain more than two entries'];
  const cidrs: CIDR[] = [];
  for (const item of items) {
    try {
      cidrs.push(parseCIDR(item.trim()));
    } catch {
      return [`--service-cluster-ip-range: ${JSON.stringify(item)} is not a CIDR (for example 10.96.0.0/12)`];
    }
  }
  if (cidrs.length === 2 && cidrs[0]!.family === cidrs[1]!.family) {
    return [
      '--service-cluster-ip-range: serviceCIDR and secondaryServiceCIDR are not dualstack (from different IPfamiles); give one IPv4 and one IPv6 range',
    ];
  }
  return [];
}

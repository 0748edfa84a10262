/**
 * The flags of `node-ipam-controller`, named, typed and worded as upstream's `NodeIPAMControllerOptions`
 * (`cmd/kube-controller-manager/app/options/nodeipamcontroller.go`), in the help section upstream's sample CCM
 * gives them (`nodeipam controller`). They change nothing unless the controller is named in `--controllers` and
 * `--allocate-node-cidrs` is true; `--cidr-allocator-type` and `--cluster-cidr` are the shared cloud flags.
 */
import {
  type CloudControllerConfig,
  defaultNodeIPAMConfig,
  type NodeIPAMConfig,
  serviceClusterIPRangeProblems,
} from '@ccm-kit/controllers';
import { num, type OptionGroup, str } from './option-group.js';

const given = (v: Readonly<Record<string, unknown>>): NodeIPAMConfig => ({
  cidrAllocatorType: str(v, 'cidr-allocator-type'),
  serviceClusterIPRange: str(v, 'service-cluster-ip-range'),
  nodeCIDRMaskSize: num(v, 'node-cidr-mask-size'),
  nodeCIDRMaskSizeIPv4: num(v, 'node-cidr-mask-size-ipv4'),
  nodeCIDRMaskSizeIPv6: num(v, 'node-cidr-mask-size-ipv6'),
});

/** Run while parsing; the parser prefixes the flag name. */
const maskSize = (v: number) => {
  if (!Number.isInteger(v) || v < 0 || v > 128) throw new Error('must be between 0 and 128 (0: unset)');
};

export const nodeIpamOptions: OptionGroup<Pick<CloudControllerConfig, 'nodeIPAM'>> = {
  addFlags(fss) {
    fss
      .flagSet('nodeipam controller')
      .string(
        'service-cluster-ip-range',
        defaultNodeIPAMConfig.serviceClusterIPRange,
        'CIDR Range for Services in cluster. Only used when --allocate-node-cidrs=true; if false, this option will be ignored.',
      )
      .int(
        'node-cidr-mask-size',
        defaultNodeIPAMConfig.nodeCIDRMaskSize,
        'Mask size for node cidr in cluster. Default is 24 for IPv4 and 64 for IPv6.',
        { typeName: 'int32', validate: maskSize },
      )
      .int(
        'node-cidr-mask-size-ipv4',
        defaultNodeIPAMConfig.nodeCIDRMaskSizeIPv4,
        'Mask size for IPv4 node cidr in dual-stack cluster. Default is 24.',
        { typeName: 'int32', validate: maskSize },
      )
      .int(
        'node-cidr-mask-size-ipv6',
        defaultNodeIPAMConfig.nodeCIDRMaskSizeIPv6,
        'Mask size for IPv6 node cidr in dual-stack cluster. Default is 64.',
        { typeName: 'int32', validate: maskSize },
      );
  },
  validate: (v) => serviceClusterIPRangeProblems(str(v, 'service-cluster-ip-range')),
  applyTo: (v) => ({ nodeIPAM: given(v) }),
};

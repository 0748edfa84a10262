/**
 * node-ipam-controller's start checks (upstream `cmd/cloud-controller-manager/nodeipamcontroller.go`
 * `startNodeIpamController` / `setNodeCIDRMaskSizes` and `NewNodeIpamController`'s mask check): mask sizes per
 * family, and every bad setting a start error naming the flag; the descriptor starts nothing without
 * `--allocate-node-cidrs`.
 */
import { describe, expect, it } from 'vitest';
import { defaultCloudControllerConfig } from '../src/contract/controller-config.js';
import type { ControllerContext } from '../src/contract/controller-context.js';
import { defaultNodeIPAMConfig, type NodeIPAMConfig } from '../src/contract/node-ipam-config.js';
import { nodeIPAMParams } from '../src/node-ipam/config.js';
import { nodeIpamController } from '../src/node-ipam/descriptor.js';
import { silentLogger } from '@ccm-kit/testing';

const cfg = (over: Partial<NodeIPAMConfig> = {}): NodeIPAMConfig => ({ ...defaultNodeIPAMConfig, ...over });
const sizes = (cluster: string, over: Partial<NodeIPAMConfig> = {}) =>
  nodeIPAMParams(cluster, cfg(over)).nodeCIDRMaskSizes;

describe('node-ipam-controller settings', () => {
  it('mask sizes default to 24 and 64 per family, in --cluster-cidr order', () => {
    expect(sizes('10.0.0.0/16')).toEqual([24]);
    expect(sizes('fd00::/48')).toEqual([64]);
    expect(sizes('10.0.0.0/16,fd00::/48')).toEqual([24, 64]);
    expect(sizes('fd00::/48,10.0.0.0/16')).toEqual([64, 24]);
    expect(sizes('10.0.0.0/16,fd00::/48', { nodeCIDRMaskSizeIPv4: 26, nodeCIDRMaskSizeIPv6: 60 })).toEqual([26, 60]);
    expect(sizes('10.0.0.0/16', { nodeCIDRMaskSize: 20 })).toEqual([20]);
    expect(sizes('fd00::/48', { nodeCIDRMaskSizeIPv6: 56 })).toEqual([56]);
  });

  it.each<[string, string, Partial<NodeIPAMConfig>, string]>([
    [
      'an unknown allocator type',
      '10.0.0.0/16',
      { cidrAllocatorType: 'CloudAllocator' },
      'invalid CIDR allocator type: CloudAllocator; node-ipam-controller implements --cidr-allocator-type=RangeAllocator only',
    ],
    ['no cluster CIDR', '', {}, 'Controller: Must specify --cluster-cidr if --allocate-node-cidrs is set'],
    ['three families', '10.0.0.0/16,fd00::/48,10.1.0.0/16', {}, 'more than max allowed of 2'],
    [
      'two of one family',
      '10.0.0.0/16,10.1.0.0/16',
      {},
      'len of ClusterCIDRs==2 and they are not configured as dual stack',
    ],
    [
      '--node-cidr-mask-size with dual stack',
      '10.0.0.0/16,fd00::/48',
      { nodeCIDRMaskSize: 24 },
      'usage of --node-cidr-mask-size is not allowed with dual-stack clusters',
    ],
    [
      '--node-cidr-mask-size with a family flag',
      '10.0.0.0/16',
      { nodeCIDRMaskSize: 24, nodeCIDRMaskSizeIPv4: 24 },
      'is not allowed if --node-cidr-mask-size is set',
    ],
    [
      '--node-cidr-mask-size-ipv4 on IPv6',
      'fd00::/48',
      { nodeCIDRMaskSizeIPv4: 24 },
      'usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster',
    ],
    [
      '--node-cidr-mask-size-ipv6 on IPv4',
      '10.0.0.0/16',
      { nodeCIDRMaskSizeIPv6: 64 },
      'usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster',
    ],
    [
      'a node mask larger than the cluster CIDR',
      '10.0.0.0/26',
      {},
      'Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family: 10.0.0.0/26 has /26, --node-cidr-mask-size-ipv4 is 24; set --node-cidr-mask-size-ipv4 between 26 and 32',
    ],
    [
      'a dual-stack IPv6 mask larger than its CIDR',
      '10.0.0.0/24,2000::/64',
      { nodeCIDRMaskSizeIPv6: 48 },
      '--node-cidr-mask-size-ipv6 is 48; set --node-cidr-mask-size-ipv6 between 64 and 128',
    ],
    [
      'an IPv6 pool over 2^16 blocks',
      'fd00::/32',
      {},
      'New CIDR set failed; the node CIDR size is too big: --node-cidr-mask-size-ipv6=64 is more than 16 bits longer than the /32 of fd00::/32; set --node-cidr-mask-size-ipv6 to at most 48',
    ],
    [
      'a bad service range',
      '10.0.0.0/16',
      { serviceClusterIPRange: 'nope' },
      '--service-cluster-ip-range: "nope" is not a CIDR',
    ],
  ])('%s is a start error naming the flag', (_, cluster, over, message) => {
    expect(() => nodeIPAMParams(cluster, cfg(over))).toThrow(message);
  });

  it('the Service ranges are parsed, one or two', () => {
    expect(
      nodeIPAMParams('10.0.0.0/8', cfg({ serviceClusterIPRange: '10.96.0.0/12,fd00::/112' })).serviceCIDRs.map(
        (c) => c.text,
      ),
    ).toEqual(['10.96.0.0/12', 'fd00::/112']);
  });
});

describe('nodeIpamController descriptor', () => {
  const ctx = (over: Partial<typeof defaultCloudControllerConfig>): ControllerContext =>
    ({
      cloud: {} as never,
      clients: { client: () => ({}) } as never,
      informers: {} as never,
      config: { ...defaultCloudControllerConfig, ...over },
      signal: new AbortController().signal,
      logger: silentLogger,
    }) as ControllerContext;

  it('is off by default, alias nodeipam, client node-controller', () => {
    expect(nodeIpamController).toMatchObject({
      name: 'node-ipam-controller',
      aliases: ['nodeipam'],
      clientName: 'node-controller',
      disabledByDefault: true,
    });
  });

  it('starts nothing without --allocate-node-cidrs, as upstream', async () => {
    await expect(nodeIpamController.init(ctx({ clusterCIDR: '10.0.0.0/16' }))).resolves.toEqual({
      started: false,
      reason: '--allocate-node-cidrs is false',
    });
  });

  it('fails the start naming the flag when --cluster-cidr is missing', async () => {
    await expect(nodeIpamController.init(ctx({ allocateNodeCIDRs: true }))).rejects.toThrow(
      'Controller: Must specify --cluster-cidr if --allocate-node-cidrs is set',
    );
  });
});

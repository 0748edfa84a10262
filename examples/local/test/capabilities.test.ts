/** The local provider's capability declaration follows its data plane and its pools. */
import { validateLoadBalancerCapabilities } from '@ccm-kit/cloud-provider';
import { describe, expect, it } from 'vitest';
import { localCapabilities } from '../src/capabilities.js';
import { parseConfig } from '../src/config.js';

const config = (dataPlane: string, ...pools: string[]) =>
  parseConfig(`
inventory: unused.yaml
dataPlane: ${dataPlane}
pools:
${pools.map((p, i) => `  - name: ${i === 0 ? 'global' : `p${i}`}\n    addresses: [${p}]`).join('\n')}
`);

describe('localCapabilities', () => {
  it('proxy: the data plane enforces source ranges and serves TCP and UDP to node ports', () => {
    const caps = localCapabilities(config('proxy', '127.0.2.0/24'));
    expect(caps).toEqual({
      ipFamilies: ['IPv4'],
      dualStack: false,
      loadBalancerIP: true,
      ipModes: ['VIP', 'Proxy'],
      protocols: ['TCP', 'UDP'],
      mixedProtocols: true,
      loadBalancerSourceRanges: true,
      externalTrafficPolicyLocal: true,
      allocateLoadBalancerNodePortsFalse: false,
      sessionAffinityClientIP: true,
    });
    expect(() => validateLoadBalancerCapabilities(caps, 'local')).not.toThrow();
  });

  it('none: only the address members; the source ranges are left unchecked', () => {
    const caps = localCapabilities(config('none', '127.0.2.0/24'));
    expect(caps).toEqual({ ipFamilies: ['IPv4'], dualStack: false, loadBalancerIP: true, ipModes: ['VIP', 'Proxy'] });
    expect(caps.loadBalancerSourceRanges).toBeUndefined();
  });

  it('the families are those of the pools; dual-stack needs one pool with both', () => {
    expect(localCapabilities(config('none', '127.0.2.0/24', '"fd00::/120"'))).toMatchObject({
      ipFamilies: ['IPv4', 'IPv6'],
      dualStack: false,
    });
    expect(localCapabilities(config('none', '127.0.2.0/24, "::1"'))).toMatchObject({
      ipFamilies: ['IPv4', 'IPv6'],
      dualStack: true,
    });
  });
});

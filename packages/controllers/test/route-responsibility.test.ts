import { parseCIDR } from '@ccm-kit/cloud-provider';
import { describe, expect, it } from 'vitest';
import { ClusterCIDRError, parseClusterCIDRs } from '../src/route/cluster-cidrs.js';
import { isResponsibleForRoute } from '../src/route/responsibility.js';

describe('isResponsibleForRoute (TestIsResponsibleForRoute)', () => {
  const cases: Array<[string, string, string, boolean]> = [
    ['RT-01', '10.244.0.0/16', '10.244.0.0/24', true],
    ['RT-02', '10.244.0.0/16', '10.244.10.0/24', true],
    ['RT-03', '10.244.0.0/16', '10.244.255.0/24', true],
    ['RT-04', '10.244.0.0/14', '10.244.0.0/24', true],
    ['RT-05', '10.244.0.0/14', '10.247.255.0/24', true],
    ['RT-06', 'a00:100::/10', 'a00:100::/24', true],
    ['RT-07', '10.244.0.0/16', '10.224.0.0/24', false],
    ['RT-08', '10.244.0.0/16', '10.0.10.0/24', false],
    ['RT-09', '10.244.0.0/16', '10.255.255.0/24', false],
    ['RT-10', '10.244.0.0/14', '10.248.0.0/24', false],
    ['RT-11', '10.244.0.0/14', '10.243.255.0/24', false],
    ['RT-12', 'a00:100::/10', 'b00:100::/24', false],
  ];
  for (const [id, cluster, route, want] of cases) {
    it(`${id}: cluster ${cluster}, route ${route} -> ${want}`, () => {
      expect(isResponsibleForRoute([parseCIDR(cluster)], { destinationCIDR: route })).toBe(want);
    });
  }

  it('a route larger than the cluster CIDR that covers it is not ours (endpoint overlap, not containment)', () => {
    expect(isResponsibleForRoute([parseCIDR('10.244.0.0/16')], { destinationCIDR: '10.0.0.0/8' })).toBe(false);
  });

  it('a route partly overlapping at its last address is ours', () => {
    // 10.244.0.0/15 spans 10.244.0.0-10.245.255.255: its first address is outside, its last inside.
    expect(isResponsibleForRoute([parseCIDR('10.245.0.0/16')], { destinationCIDR: '10.244.0.0/15' })).toBe(true);
  });

  it('checks every cluster CIDR (dual-stack) and keeps families apart', () => {
    const cidrs = parseClusterCIDRs('10.120.0.0/16,ace:cab:deca::/8');
    expect(isResponsibleForRoute(cidrs, { destinationCIDR: 'a00:300::/24' })).toBe(true);
    expect(isResponsibleForRoute(cidrs, { destinationCIDR: '10.120.2.0/24' })).toBe(true);
    expect(isResponsibleForRoute([parseCIDR('::/0')], { destinationCIDR: '10.0.0.0/24' })).toBe(false);
    expect(isResponsibleForRoute([parseCIDR('10.0.0.0/8')], { destinationCIDR: '::ffff:10.1.0.0/112' })).toBe(true);
  });

  it('an unparsable route is never ours and the parse error is reported', () => {
    const errors: string[] = [];
    const ok = isResponsibleForRoute([parseCIDR('0.0.0.0/0')], { destinationCIDR: 'not-a-cidr' }, (e) =>
      errors.push(e.message),
    );
    expect(ok).toBe(false);
    expect(errors).toEqual(['invalid CIDR address: not-a-cidr']);
  });
});

describe('parseClusterCIDRs (--cluster-cidr)', () => {
  it('parses one CIDR and normalizes the network', () => {
    const [c] = parseClusterCIDRs(' 10.120.5.7/16 ');
    expect(c!.family).toBe(4);
    expect(c!.prefix).toBe(16);
    expect(parseClusterCIDRs('ace:cab:deca::/8')[0]!.network.family).toBe(6);
  });

  it('accepts two CIDRs of different families (dual-stack)', () => {
    expect(parseClusterCIDRs('10.120.0.0/16,fd00::/48')).toHaveLength(2);
  });

  it('rejects an empty value, naming --cluster-cidr', () => {
    expect(() => parseClusterCIDRs('')).toThrow(ClusterCIDRError);
    expect(() => parseClusterCIDRs('  ')).toThrow(/--cluster-cidr.*invalid CIDR\[0\].*required/);
  });

  it('does not trim items: "a, b" fails on the second item', () => {
    expect(() => parseClusterCIDRs('10.0.0.0/16, fd00::/48')).toThrow(
      'invalid --cluster-cidr "10.0.0.0/16, fd00::/48": invalid CIDR[1] " fd00::/48": invalid CIDR address:  fd00::/48',
    );
  });

  it('rejects two CIDRs of one family with upstream message', () => {
    expect(() => parseClusterCIDRs('10.0.0.0/16,10.1.0.0/16')).toThrow(
      'len of ClusterCIDRs==2 and they are not configured as dual stack (at least one from each IPFamily',
    );
  });

  it('rejects more than two CIDRs even when dual-stack', () => {
    expect(() => parseClusterCIDRs('10.0.0.0/16,fd00::/48,10.1.0.0/16')).toThrow(
      'length of clusterCIDRs is:3 more than max allowed of 2',
    );
  });
});

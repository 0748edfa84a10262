import { CIDRParseError, cidrContains, formatCIDR, formatIP, parseCIDR, parseIP } from '@ccm-kit/cloud-provider';
import { describe, expect, it } from 'vitest';

describe('shared CIDR parsing (Go net.ParseCIDR, sloppy IPv4)', () => {
  it('clears host bits and computes the last address', () => {
    const c = parseCIDR('10.120.5.7/16');
    expect(formatIP(c.network)).toBe('10.120.0.0');
    expect(formatIP(c.last)).toBe('10.120.255.255');
    expect(formatCIDR(c)).toBe('10.120.0.0/16');
  });

  it('normalizes IPv6 like Go (ace:cab:deca::/8 -> a00::/8)', () => {
    const c = parseCIDR('ace:cab:deca::/8');
    expect(formatCIDR(c)).toBe('a00::/8');
    expect(formatIP(c.last)).toBe('aff:ffff:ffff:ffff:ffff:ffff:ffff:ffff');
  });

  it('accepts IPv4 octets with leading zeros as decimal (ParseCIDRSloppy)', () => {
    expect(formatCIDR(parseCIDR('010.001.0.0/16'))).toBe('10.1.0.0/16');
  });

  it('accepts an embedded IPv4 tail in IPv6 and treats ::ffff:0:0/96 blocks as IPv4', () => {
    const c = parseCIDR('::ffff:10.0.0.0/104');
    expect(c.family).toBe(4);
    expect(c.prefix).toBe(8);
    expect(cidrContains(c, parseIP('10.9.9.9')!)).toBe(true);
  });

  it.each([
    '',
    '10.0.0.0',
    '10.0.0.0/33',
    'fd00::/129',
    '10.0.0/8',
    '256.0.0.0/8',
    '1::2::3/64',
    'fe80::1%eth0/64',
    ' 10.0.0.0/8',
    '10.0.0.0/8 ',
    '10.0.0.0/-1',
    '1:2:3:4:5:6:7:8:9/64',
    'g::/8',
  ])('rejects %j with Go message', (text) => {
    expect(() => parseCIDR(text)).toThrow(CIDRParseError);
    expect(() => parseCIDR(text)).toThrow(`invalid CIDR address: ${text}`);
  });

  it('contains checks prefix bits and family', () => {
    const c = parseCIDR('10.244.0.0/14');
    expect(cidrContains(c, parseIP('10.247.255.255')!)).toBe(true);
    expect(cidrContains(c, parseIP('10.248.0.0')!)).toBe(false);
    expect(cidrContains(parseCIDR('0.0.0.0/0'), parseIP('fd00::1')!)).toBe(false);
    expect(cidrContains(parseCIDR('::/0'), parseIP('1.2.3.4')!)).toBe(false);
    expect(cidrContains(parseCIDR('::/0'), parseIP('fd00::1')!)).toBe(true);
  });

  it('formats IPv6 with the longest zero run compressed', () => {
    expect(formatIP(parseIP('1:0:0:2:0:0:0:3')!)).toBe('1:0:0:2::3');
    expect(formatIP(parseIP('::')!)).toBe('::');
    expect(formatIP(parseIP('1:2:3:4:5:6:7:8')!)).toBe('1:2:3:4:5:6:7:8');
  });
});

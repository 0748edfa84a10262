import { describe, expect, it } from 'vitest';
import { formatCIDR, formatIP, ipEqual, parseIP, tryParseCIDR } from '../src/net.js';

const fmt = (s: string) => {
  const ip = parseIP(s);
  if (ip === undefined) throw new Error(`unparsable ${s}`);
  return formatIP(ip);
};

const cidrText = (t: string) => {
  const c = tryParseCIDR(t);
  return c && formatCIDR(c);
};

describe('IP parsing (Go net semantics)', () => {
  it('formats IPv6 as RFC 5952 and IPv4 dotted', () => {
    expect(fmt('2600:1f14:1d4:d101:0:0:0:ba3d')).toBe('2600:1f14:1d4:d101::ba3d');
    expect(fmt('1:0:0:2:0:0:0:3')).toBe('1:0:0:2::3');
    expect(fmt('1:0:0:2:0:0:3:4')).toBe('1::2:0:0:3:4');
    expect(fmt('1:0:2:3:4:5:6:7')).toBe('1:0:2:3:4:5:6:7');
    expect(fmt('::')).toBe('::');
    expect(fmt('FC01::ABCD')).toBe('fc01::abcd');
    expect(fmt('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(fmt('001.002.003.004')).toBe('1.2.3.4');
  });

  it('treats IPv4-mapped IPv6 as IPv4, as Go does', () => {
    const a = parseIP('::ffff:10.1.1.1');
    const b = parseIP('10.1.1.1');
    expect(a && b && ipEqual(a, b)).toBe(true);
    expect(a?.family).toBe(4);
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '1.2.3.256',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '12345::',
    'fe80::1%eth0',
    ':1:2',
    '1.2.3.-4',
    '1.2.3.4.',
    '.1.2.3.4',
    '1..2.3',
    '1.2.3.0004',
    ' 1.2.3.4',
    '1.2.3.4 ',
    '1.2.3.+4',
    '1.2.3.0x4',
    '\uff11.2.3.4',
    '::ffff:1.2.3.256',
    '::ffff:1.2.3',
  ])('rejects %j', (s) => {
    expect(parseIP(s)).toBeUndefined();
  });

  it('reads dotted IPv4 as the split-and-match reading of k8s.io/utils/net does, for any text', () => {
    // The reference: four `.`-separated parts of 1-3 ASCII digits, each at most 255, mapped into ::ffff:0:0/96.
    const reference = (text: string): number[] | undefined => {
      const parts = text.split('.');
      if (parts.length !== 4 || !parts.every((p) => /^[0-9]{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
      return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...parts.map(Number)];
    };
    const pieces = ['0', '1', '9', '10', '25', '99', '255', '256', '000', '0255', '', 'a', ' 1', '1 ', '+1', '-1'];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let accepted = 0;
    for (let n = 0; n < 20_000; n++) {
      // Three to five parts, mostly numbers (valid and not), sometimes empty or with other characters.
      const parts: string[] = [];
      const count = 3 + Math.floor(random() * 3);
      for (let i = 0; i < count; i++) parts.push(pieces[Math.floor(random() * (random() < 0.8 ? 8 : pieces.length))]!);
      const text = parts.join('.');
      const want = reference(text);
      const got = parseIP(text);
      expect(got && Array.from(got.bytes), text).toEqual(want);
      if (want) {
        expect(got?.family, text).toBe(4);
        accepted++;
      }
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it('parses CIDRs to masked networks and refuses bare IPs and oversize prefixes', () => {
    expect(cidrText('192.168.7.9/16')).toBe('192.168.0.0/16');
    expect(cidrText('192.168.0.0/0')).toBe('0.0.0.0/0');
    expect(cidrText('2001:db8::1/32')).toBe('2001:db8::/32');
    expect(cidrText('::/0')).toBe('::/0');
    expect(tryParseCIDR('10.0.0.1')).toBeUndefined();
    expect(tryParseCIDR('10.0.0.1/33')).toBeUndefined();
    expect(tryParseCIDR('::1/129')).toBeUndefined();
    expect(tryParseCIDR('10.0.0.1/-1')).toBeUndefined();
    expect(tryParseCIDR('10.0.0.256/8')).toBeUndefined();
    expect(tryParseCIDR('10.0.0.0/24')).toMatchObject({ family: 4, prefix: 24 });
    expect(tryParseCIDR('fd00::/104')).toMatchObject({ family: 6, prefix: 104 });
  });
});

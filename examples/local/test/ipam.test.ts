import { describe, expect, it } from 'vitest';
import { type PoolConfig, parseConfig } from '../src/config.js';
import { canonicalIP, formatIP, parseIP, parseSpan } from '../src/ip.js';
import { type FamilyRequest, IPConflictError, Ipam, PoolExhaustedError } from '../src/ipam.js';

function pools(yaml: string): PoolConfig[] {
  return [...parseConfig(`inventory: i.yaml\npools:\n${yaml}`).pools];
}

const [small, dual] = pools(`
  - name: small
    addresses: [127.0.2.1-127.0.2.3]
  - name: dual
    addresses: [10.0.0.0/30, "fd00::/126"]
`) as [PoolConfig, PoolConfig];

const v4: FamilyRequest[] = [{ family: 'IPv4', required: true }];

describe('ip', () => {
  it('parses and formats both families canonically', () => {
    expect(canonicalIP('010.001.0.1')).toBe('10.1.0.1'); // Kubernetes' sloppy IPv4: leading zeros read as decimal
    expect(canonicalIP('FD00:0:0:0::0001')).toBe('fd00::1');
    expect(canonicalIP('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(canonicalIP('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalIP('::1.2.3.4')).toBe('::102:304');
    expect(canonicalIP('fe80::1%eth0')).toBeUndefined();
    expect(formatIP(parseIP('::')!)).toBe('::');
    expect(formatIP(parseIP('1:2:3:4:5:6:7:8')!)).toBe('1:2:3:4:5:6:7:8');
  });

  it('parses spans', () => {
    expect(parseSpan('192.168.1.0/24')).toEqual({ family: 'IPv4', first: 0xc0a80101n, last: 0xc0a801fen });
    expect(parseSpan('192.168.1.77/24').first).toBe(0xc0a80101n); // masked
    expect(parseSpan(' 10.0.0.5 ')).toEqual({ family: 'IPv4', first: 0x0a000005n, last: 0x0a000005n });
    expect(() => parseSpan('fd00::1/24x')).toThrow(/invalid prefix length/);
    expect(() => parseSpan('10.0.0.1/8/2')).toThrow();
  });
});

describe('Ipam', () => {
  it('hands out the lowest free address and keeps a key on its address', () => {
    const ipam = new Ipam();
    const a = ipam.plan('a', { pool: small, families: v4 });
    expect(a).toEqual(['127.0.2.1']);
    ipam.set('a', a);
    expect(ipam.plan('a', { pool: small, families: v4 })).toEqual(['127.0.2.1']);
    ipam.set('b', ipam.plan('b', { pool: small, families: v4 }));
    expect(ipam.get('b')).toEqual(['127.0.2.2']);
    expect(ipam.holderOf('127.0.2.2')).toBe('b');
    ipam.release('a');
    expect(ipam.plan('c', { pool: small, families: v4 })).toEqual(['127.0.2.1']);
  });

  it('reports exhaustion of a required family and changes nothing', () => {
    const ipam = new Ipam();
    for (const k of ['a', 'b', 'c']) ipam.set(k, ipam.plan(k, { pool: small, families: v4 }));
    expect(ipam.size).toBe(3);
    const err = (() => {
      try {
        ipam.plan('d', { pool: small, families: v4 });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(PoolExhaustedError);
    expect((err as Error).message).toBe('pool "small" has no free IPv4 address');
    expect(ipam.get('d')).toBeUndefined();
    expect(ipam.size).toBe(3);
  });

  it('follows the family request: dual-stack required, preferred, IPv6 first', () => {
    const ipam = new Ipam();
    const both = ipam.plan('a', {
      pool: dual,
      families: [
        { family: 'IPv6', required: true },
        { family: 'IPv4', required: true },
      ],
    });
    expect(both).toEqual(['fd00::1', '10.0.0.1']);
    ipam.set('a', both);
    // A v4-only pool: PreferDualStack gets v4 only; RequireDualStack fails.
    const prefer = ipam.plan('b', {
      pool: small,
      families: [
        { family: 'IPv4', required: true },
        { family: 'IPv6', required: false },
      ],
    });
    expect(prefer).toEqual(['127.0.2.1']);
    expect(() =>
      ipam.plan('b', {
        pool: small,
        families: [
          { family: 'IPv4', required: true },
          { family: 'IPv6', required: true },
        ],
      }),
    ).toThrow('pool "small" has no free IPv6 address');
  });

  it('moves a key to a new pool, keeping nothing from the old one', () => {
    const ipam = new Ipam();
    ipam.set('a', ipam.plan('a', { pool: small, families: v4 }));
    const moved = ipam.plan('a', { pool: dual, families: v4 });
    expect(moved).toEqual(['10.0.0.1']);
    ipam.reserve('a', moved);
    expect(ipam.get('a')).toEqual(['127.0.2.1', '10.0.0.1']); // both held while the record is written
    ipam.set('a', moved);
    expect(ipam.holderOf('127.0.2.1')).toBeUndefined();
  });

  it('takes static addresses and refuses those held by another key', () => {
    const ipam = new Ipam();
    ipam.set('a', ipam.plan('a', { pool: small, families: v4, staticIPs: ['127.0.2.3'] }));
    expect(ipam.get('a')).toEqual(['127.0.2.3']);
    expect(() => ipam.plan('b', { pool: small, families: v4, staticIPs: ['127.0.2.3'] })).toThrow(IPConflictError);
    expect(() => ipam.reserve('b', ['127.0.2.3'])).toThrow(
      'address 127.0.2.3 is already allocated to another Service (a)',
    );
    expect(() => ipam.set('b', ['127.0.2.3'])).toThrow(IPConflictError);
    // Dynamic allocation skips the static address.
    ipam.set('b', ipam.plan('b', { pool: small, families: v4 }));
    ipam.set('c', ipam.plan('c', { pool: small, families: v4 }));
    expect([ipam.get('b'), ipam.get('c')]).toEqual([['127.0.2.1'], ['127.0.2.2']]);
  });

  it('rolls back to the previous addresses', () => {
    const ipam = new Ipam();
    ipam.set('a', ['127.0.2.1']);
    ipam.reserve('a', ['127.0.2.2']);
    ipam.set('a', ['127.0.2.1']);
    expect(ipam.entries()).toEqual([['a', ['127.0.2.1']]]);
    expect(ipam.holderOf('127.0.2.2')).toBeUndefined();
  });

  it('claims recorded addresses, reporting those held elsewhere', () => {
    const ipam = new Ipam();
    expect(ipam.claim('old', ['127.0.2.1', 'fd00::1'])).toEqual({
      claimed: ['127.0.2.1', 'fd00::1'],
      conflicts: [],
    });
    expect(ipam.claim('new', ['127.0.2.1', '127.0.2.9'])).toEqual({
      claimed: ['127.0.2.9'],
      conflicts: [{ ip: '127.0.2.1', holder: 'old' }],
    });
    expect(ipam.size).toBe(3);
  });

  it('finds a free address in a large IPv6 pool quickly', () => {
    const [big] = pools(`
  - name: big
    addresses: ["fd00::/64"]
`) as [PoolConfig];
    const ipam = new Ipam();
    const six: FamilyRequest[] = [{ family: 'IPv6', required: true }];
    for (let i = 0; i < 200; i++) ipam.set(`k${i}`, ipam.plan(`k${i}`, { pool: big, families: six }));
    expect(ipam.get('k199')).toEqual(['fd00::c8']);
  });
});

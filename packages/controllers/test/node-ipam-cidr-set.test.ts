/**
 * The node CIDR pool, with the scenarios of upstream's
 * `pkg/controller/nodeipam/ipam/cidrset/cidr_set_test.go` in our own words: a pool of one block, block
 * arithmetic for IPv4 and IPv6 at every mask boundary, exhaustion and reuse, occupying and releasing ranges
 * without counting twice, the IPv6 size limit, and the `cidrset_*` series.
 */
import { parseCIDR } from '@ccm-kit/cloud-provider';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CIDROutOfRangeError, CidrSet, NoCIDRsRemainingError } from '../src/node-ipam/cidr-set.js';
import { type CidrSetMetrics, createCidrSetMetrics } from '../src/node-ipam/metrics.js';

function pool(cluster: string, mask: number, metrics = createCidrSetMetrics(new Registry())): CidrSet {
  return new CidrSet(parseCIDR(cluster), mask, metrics);
}

const text = (c: ReturnType<CidrSet['allocateNext']>) => `${c.cidr.text}`;

describe('CidrSet', () => {
  it.each([
    ['127.123.234.0/30', 30],
    ['beef:1234::/30', 30],
  ])('a pool of one block %s hands it out, is then full, and hands it out again once released', (cluster) => {
    const set = pool(cluster, 30);
    const first = set.allocateNext();
    expect(first.cidr.text).toBe(cluster);
    expect(() => set.allocateNext()).toThrow(NoCIDRsRemainingError);
    set.release(first.cidr);
    expect(text(set.allocateNext())).toBe(cluster);
    expect(() => set.allocateNext()).toThrow(
      'CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range',
    );
  });

  it.each([
    ['127.123.3.0/16', 24, 0, '127.123.0.0/24'],
    ['127.123.0.0/16', 24, 15, '127.123.15.0/24'],
    ['192.168.5.219/28', 32, 5, '192.168.5.213/32'],
    ['2001:0db8:1234:3::/48', 64, 0, '2001:db8:1234::/64'],
    ['2001:0db8:1234::/48', 64, 15, '2001:db8:1234:f::/64'],
    ['2001:0db8:85a3::8a2e:0370:7334/50', 63, 6425, '2001:db8:85a3:3232::/63'],
    ['2001:0db8::/32', 48, 0, '2001:db8::/48'],
    ['2001:0db8::/32', 48, 15, '2001:db8:f::/48'],
    ['2001:0db8:85a3::8a2e:0370:7334/32', 48, 6425, '2001:db8:1919::/48'],
    ['2001:0db8:1234:ff00::/56', 72, 0, '2001:db8:1234:ff00::/72'],
    ['2001:0db8:1234:ff00::/56', 72, 15, '2001:db8:1234:ff00:f00::/72'],
    ['2001:0db8:1234:ff00::0370:7334/56', 72, 6425, '2001:db8:1234:ff19:1900::/72'],
    ['2001:0db8:1234:0:1234::/80', 96, 0, '2001:db8:1234:0:1234::/96'],
    ['2001:0db8:1234:0:1234::/80', 96, 15, '2001:db8:1234:0:1234:f::/96'],
    ['2001:0db8:1234:ff00::0370:7334/80', 96, 6425, '2001:db8:1234:ff00:0:1919::/96'],
  ])('in %s with /%i blocks, block %i is %s', (cluster, mask, index, block) => {
    expect(pool(cluster, mask).blockAt(index).text).toBe(block);
  });

  it.each(['127.123.234.0/16', 'beef:1234::/16'])(
    'in %s, all 256 /24 blocks come out, the pool is full, and after releasing all the same blocks come out again',
    (cluster) => {
      const set = pool(cluster, 24);
      const first = Array.from({ length: 256 }, () => text(set.allocateNext()));
      expect(new Set(first).size).toBe(256);
      expect(() => set.allocateNext()).toThrow(NoCIDRsRemainingError);
      for (const c of first) set.release(parseCIDR(c));
      const again = Array.from({ length: 256 }, () => text(set.allocateNext()));
      expect(() => set.allocateNext()).toThrow(NoCIDRsRemainingError);
      expect(new Set(again)).toEqual(new Set(first));
    },
  );

  it.each(['127.123.234.0/16', 'beef:1234::/16'])(
    'in %s, occupied blocks are skipped: with the upper half occupied (one of them twice) only the lower half comes out',
    (cluster) => {
      const set = pool(cluster, 24);
      const all = Array.from({ length: 256 }, () => set.allocateNext().cidr);
      for (const c of all) set.release(c);
      for (const c of all.slice(128)) set.occupy(c);
      set.occupy(all[128]!);
      expect(set.allocatedCount).toBe(128);
      const lower = Array.from({ length: 128 }, () => set.allocateNext().cidr.text);
      expect(() => set.allocateNext()).toThrow(NoCIDRsRemainingError);
      expect(new Set(lower)).toEqual(new Set(all.slice(0, 128).map((c) => c.text)));
    },
  );

  it('occupying and releasing overlapping ranges counts each block once', () => {
    const set = pool('10.42.0.0/16', 24);
    const steps: [string, 'occupy' | 'release', number][] = [
      ['10.42.5.0/24', 'occupy', 1],
      ['10.42.9.0/24', 'occupy', 2],
      ['10.42.8.0/22', 'occupy', 5], // four blocks, one already used
      ['10.42.9.0/24', 'occupy', 5],
      ['10.42.9.0/24', 'release', 4],
      ['10.42.9.0/24', 'release', 4],
      ['10.42.4.0/22', 'release', 3], // four blocks, one of them used
    ];
    for (const [cidr, op, used] of steps) {
      set[op](parseCIDR(cidr));
      expect(set.allocatedCount, `${op} ${cidr}`).toBe(used);
    }
    for (let i = 0; i < 256 - 3; i++) set.allocateNext();
    expect(() => set.allocateNext()).toThrow(NoCIDRsRemainingError);
  });

  it.each([
    ['127.0.0.0/8', 16, '127.0.0.0/16', 0, 0],
    ['be00::/8', 16, 'be00::/16', 0, 0],
    ['127.0.0.0/8', 16, '127.123.0.0/16', 123, 123],
    ['be00::/8', 16, 'beef::/16', 0xef, 0xef],
    ['192.168.0.0/16', 24, '192.168.151.0/24', 151, 151],
    ['beef::/16', 24, 'beef:9700::/24', 0x97, 0x97],
    ['127.0.0.0/8', 16, '127.0.0.0/8', 0, 255],
    ['2001:beef:1200::/40', 48, '2001:beef:1200::/40', 0, 255],
    ['127.0.0.0/8', 16, '127.0.0.0/2', 0, 255],
    ['2001:beef:1200::/40', 48, '2001:beef:1234::/34', 0, 255],
    ['127.0.0.0/8', 32, '127.0.0.0/16', 0, 65535],
    ['2001:beef:1200::/48', 64, '2001:beef:1200::/48', 0, 65535],
    ['127.0.0.0/7', 16, '127.0.0.0/15', 256, 257],
    ['2001:beef:7f00::/39', 48, '2001:beef:7f00::/47', 256, 257],
    ['127.0.0.0/7', 15, '127.0.0.0/15', 128, 128],
    ['2001:beef:7f00::/39', 47, '2001:beef:7f00::/47', 128, 128],
    ['127.0.0.0/7', 18, '127.0.0.0/15', 1024, 1031],
    ['2001:beef:7f00::/39', 50, '2001:beef:7f00::/47', 1024, 1031],
  ])('in %s with /%i blocks, %s covers blocks %i to %i', (cluster, mask, cidr, begin, end) => {
    const set = pool(cluster, mask);
    expect(set.indexRange(parseCIDR(cidr))).toEqual([begin, end]);
    set.occupy(parseCIDR(cidr));
    expect(set.allocatedCount).toBe(end - begin + 1);
    expect(set.isUsed(begin) && set.isUsed(end)).toBe(true);
    if (begin > 0) expect(set.isUsed(begin - 1)).toBe(false);
  });

  it.each([
    ['192.168.0.0/16', '127.168.224.0/24'],
    ['beef::/16', '2001:db00::/24'],
    ['10.0.0.0/16', 'fd00::/64'],
  ])('a CIDR outside %s (%s) is refused and nothing is marked', (cluster, cidr) => {
    const set = pool(cluster, 24);
    expect(() => set.occupy(parseCIDR(cidr))).toThrow(CIDROutOfRangeError);
    expect(() => set.release(parseCIDR(cidr))).toThrow(`cidr ${cidr} is out the range of cluster cidr ${cluster}`);
    expect(set.allocatedCount).toBe(0);
  });

  it('IPv4 pools take any node mask; IPv6 ones at most 16 bits longer than the cluster prefix', () => {
    const v4 = pool('127.0.0.0/8', 32);
    expect([text(v4.allocateNext()), text(v4.allocateNext())]).toEqual(['127.0.0.0/32', '127.0.0.1/32']);
    expect(() => pool('beef:1234::/32', 49)).toThrow('New CIDR set failed; the node CIDR size is too big');
    const v6 = pool('2001:beef:1234:369b::/60', 64);
    expect([text(v6.allocateNext()), text(v6.allocateNext())]).toEqual([
      '2001:beef:1234:3690::/64',
      '2001:beef:1234:3691::/64',
    ]);
    expect(() => pool('10.0.0.0/16', 8)).toThrow(RangeError);
  });

  it('a large IPv4 pool holds no memory for blocks never used', () => {
    const set = pool('10.0.0.0/8', 32);
    expect(set.maxCIDRs).toBe(2 ** 24);
    set.occupy(parseCIDR('10.96.0.0/12'));
    expect(set.allocatedCount).toBe(2 ** 20);
    expect(text(set.allocateNext())).toBe('10.0.0.0/32');
  });
});

describe('cidrset metrics', () => {
  async function values(metrics: CidrSetMetrics, label: string) {
    const one = async (m: { get(): Promise<{ values: { labels: object; value: number; metricName?: string }[] }> }) =>
      (await m.get()).values.filter((v) => (v.labels as { clusterCIDR?: string }).clusterCIDR === label);
    const tries = await one(metrics.tries);
    return {
      usage: (await one(metrics.usage))[0]?.value,
      allocs: (await one(metrics.allocations))[0]?.value ?? 0,
      releases: (await one(metrics.releases))[0]?.value ?? 0,
      triesSum: tries.find((v) => v.metricName?.endsWith('_sum'))?.value ?? 0,
      max: (await one(metrics.maxCIDRs))[0]?.value,
    };
  }

  it('are registered under upstream names, with the clusterCIDR label', async () => {
    const registry = new Registry();
    pool('10.0.0.0/16', 24, createCidrSetMetrics(registry));
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name).sort();
    expect(names).toEqual([
      'node_ipam_controller_cidrset_allocation_tries_per_request',
      'node_ipam_controller_cidrset_cidrs_allocations_total',
      'node_ipam_controller_cidrset_cidrs_releases_total',
      'node_ipam_controller_cidrset_usage_cidrs',
      'node_ipam_controller_cirdset_max_cidrs',
    ]);
  });

  it('count allocations, releases and usage; occupying counts as allocation', async () => {
    const metrics = createCidrSetMetrics(new Registry());
    const set = pool('10.0.0.0/16', 24, metrics);
    expect(await values(metrics, '10.0.0.0/16')).toMatchObject({ max: 256, allocs: 0, releases: 0 });
    for (let i = 1; i <= 256; i++) set.allocateNext();
    expect(await values(metrics, '10.0.0.0/16')).toMatchObject({ usage: 1, allocs: 256, triesSum: 0 });
    set.release(parseCIDR('10.0.0.0/16'));
    expect(await values(metrics, '10.0.0.0/16')).toMatchObject({ usage: 0, allocs: 256, releases: 256 });
    set.occupy(parseCIDR('10.0.0.0/16'));
    expect(await values(metrics, '10.0.0.0/16')).toMatchObject({ usage: 1, allocs: 512, releases: 256 });
  });

  it('observe how many used blocks an allocation skipped', async () => {
    const metrics = createCidrSetMetrics(new Registry());
    const set = pool('10.0.0.0/16', 24, metrics);
    set.occupy(parseCIDR('10.0.0.0/17'));
    expect(await values(metrics, '10.0.0.0/16')).toMatchObject({ usage: 0.5, allocs: 128, triesSum: 0 });
    expect(text(set.allocateNext())).toBe('10.0.128.0/24');
    expect(await values(metrics, '10.0.0.0/16')).toMatchObject({ usage: 129 / 256, allocs: 129, triesSum: 128 });
  });

  it('keep an IPv4 and an IPv6 pool apart', async () => {
    const metrics = createCidrSetMetrics(new Registry());
    const v4 = pool('10.0.0.0/16', 24, metrics);
    const v6 = pool('2001:db8::/48', 64, metrics);
    v4.occupy(parseCIDR('10.0.0.0/16'));
    v6.occupy(parseCIDR('2001:db8::/48'));
    expect(await values(metrics, '10.0.0.0/16')).toMatchObject({ max: 256, allocs: 256, usage: 1 });
    expect(await values(metrics, '2001:db8::/48')).toMatchObject({ max: 65536, allocs: 65536, usage: 1 });
    v6.release(parseCIDR('2001:db8::/48'));
    expect(await values(metrics, '2001:db8::/48')).toMatchObject({ releases: 65536, usage: 0 });
    expect(await values(metrics, '10.0.0.0/16')).toMatchObject({ releases: 0, usage: 1 });
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, selectPool } from '../src/config.js';
import { parseDurationMs } from '../src/duration.js';

function problemsOf(text: string | undefined): readonly string[] {
  try {
    parseConfig(text);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

const FULL = `
clusterID: demo
inventory: /tmp/inventory.yaml
inventoryPollInterval: 500ms
dataPlane: none
healthCheckInterval: 1s
connectTimeout: 250ms
drainTimeout: 0s
pools:
  - name: global
    addresses: [127.0.2.0/24, "fd00:2::/120"]
  - name: team-a
    namespaces: [team-a, team-b]
    addresses: [127.0.3.10-127.0.3.20, 127.0.3.30]
`;

describe('parseConfig', () => {
  it('reads every field, with durations in milliseconds', () => {
    const c = parseConfig(FULL);
    expect(c).toMatchObject({
      clusterID: 'demo',
      inventory: '/tmp/inventory.yaml',
      inventoryPollIntervalMs: 500,
      dataPlane: 'none',
      healthCheckIntervalMs: 1_000,
      connectTimeoutMs: 250,
      drainTimeoutMs: 0,
    });
    expect(c.pools.map((p) => p.name)).toEqual(['global', 'team-a']);
    expect(c.pools[0]?.spans.map((s) => s.family)).toEqual(['IPv4', 'IPv6']);
    expect(c.pools[1]?.namespaces).toEqual(['team-a', 'team-b']);
  });

  it('applies the defaults', () => {
    const c = parseConfig('inventory: inv.yaml');
    expect(c).toMatchObject({
      clusterID: '',
      dataPlane: 'proxy',
      inventoryPollIntervalMs: 2_000,
      healthCheckIntervalMs: 5_000,
      connectTimeoutMs: 5_000,
      drainTimeoutMs: 5_000,
      pools: [],
    });
  });

  it('requires a file', () => {
    expect(problemsOf(undefined)[0]).toMatch(/--cloud-config is required/);
    expect(problemsOf('   ')[0]).toMatch(/--cloud-config is required/);
  });

  it('reports invalid YAML and non-mappings', () => {
    expect(problemsOf('a: [1')[0]).toMatch(/not valid YAML/);
    expect(problemsOf('- 1\n- 2')[0]).toMatch(/must hold a mapping/);
  });

  it('reports every problem together, each naming its field', () => {
    const problems = problemsOf(`
clusterID: 7
dataPlane: envoy
healthCheckInterval: 10
connectTimeout: 1ms
drainTimeout: soon
typo: 1
pools:
  - name: Global
    addresses: []
  - name: a
    addresses: [10.0.0.0/33, "10.0.0.9-10.0.0.1", "10.0.0.1-fd00::1", bogus, 5]
    namespaces: [x]
    extra: true
  - name: a
    addresses: [10.1.0.0/24]
    namespaces: [x]
`);
    const expected = [
      /^typo: unknown field$/,
      /^clusterID: must be a string$/,
      /^inventory: required/,
      /^dataPlane: must be "proxy" or "none", got "envoy"$/,
      /^healthCheckInterval: must be a duration string/,
      /^connectTimeout: 1ms is out of range \(100ms\.\.300000ms\)$/,
      /^drainTimeout: invalid duration "soon"/,
      /^pools\[0\]\.name: must be a DNS label/,
      /^pools\[1\]\.extra: unknown field$/,
      /^pools\[1\]\.addresses\[0\]: "10\.0\.0\.0\/33" has an invalid prefix length/,
      /^pools\[1\]\.addresses\[1\]: "10\.0\.0\.9-10\.0\.0\.1" ends before it starts$/,
      /^pools\[1\]\.addresses\[2\]: .*mixes IPv4 and IPv6$/,
      /^pools\[1\]\.addresses\[3\]: "bogus" is not an IP address, CIDR or range$/,
      /^pools\[1\]\.addresses\[4\]: must be a string/,
      /^pools\[2\]\.name: duplicate pool name "a"$/,
      /^pools\[2\]\.namespaces: namespace "x" is already served by pool "a"$/,
    ];
    for (const re of expected)
      expect(
        problems.some((p) => re.test(p)),
        `${re}`,
      ).toBe(true);
    expect(problems).toHaveLength(expected.length);
  });

  it('rejects overlapping pools and a global pool bound to namespaces', () => {
    const problems = problemsOf(`
inventory: i.yaml
pools:
  - name: global
    namespaces: [a]
    addresses: [10.0.0.0/24]
  - name: b
    addresses: [10.0.0.100-10.0.1.5]
`);
    expect(problems).toEqual([
      'pools[0].namespaces: the "global" pool serves every namespace',
      'pools: 10.0.0.1-10.0.0.254 (pool "global") overlaps 10.0.0.100-10.0.1.5 (pool "b")',
    ]);
  });

  it('skips network and broadcast addresses of IPv4 CIDRs and the anycast address of IPv6 ones', () => {
    const c = parseConfig(`
inventory: i.yaml
pools:
  - name: global
    addresses: [10.0.0.0/30, 10.0.1.0/31, 10.0.2.7/32, "fd00::/126", "fd00:1::/127"]
`);
    const spans = c.pools[0]!.spans.map((s) => [s.first, s.last].map((v) => v - s.first));
    expect(spans).toEqual([
      [0n, 1n], // .1-.2
      [0n, 1n], // /31: both usable
      [0n, 0n],
      [0n, 2n], // ::1-::3
      [0n, 1n],
    ]);
    expect(c.pools[0]!.spans[0]!.first & 0xffn).toBe(1n);
  });
});

describe('selectPool', () => {
  const config = parseConfig(FULL);

  it('uses the namespace pool, else the global pool', () => {
    expect(selectPool(config, 'team-b').name).toBe('team-a');
    expect(selectPool(config, 'other').name).toBe('global');
  });

  it('honours a requested pool and refuses pools reserved for other namespaces', () => {
    expect(selectPool(config, 'team-a', 'global').name).toBe('global');
    expect(() => selectPool(config, 'other', 'team-a')).toThrow(
      'pool "team-a" is reserved for namespaces team-a, team-b',
    );
    expect(() => selectPool(config, 'other', 'nope')).toThrow('pool "nope" does not exist (pools: global, team-a)');
  });

  it('fails clearly without a usable pool', () => {
    const c = parseConfig('inventory: i.yaml\npools: [{ name: x, namespaces: [a], addresses: [10.0.0.1] }]');
    expect(() => selectPool(c, 'b')).toThrow('no address pool for namespace "b"');
  });
});

describe('parseDurationMs', () => {
  it('reads Go-style durations', () => {
    expect(parseDurationMs('500ms')).toBe(500);
    expect(parseDurationMs('2s')).toBe(2_000);
    expect(parseDurationMs('1m30s')).toBe(90_000);
    expect(parseDurationMs('1.5h')).toBe(5_400_000);
  });
  it('rejects anything else', () => {
    for (const bad of ['', '5', 's', '-1s', '1d', '1s2']) {
      expect(() => parseDurationMs(bad), bad).toThrow(/invalid duration/);
    }
  });
});

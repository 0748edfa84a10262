import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { defineAnnotations, findError, InvalidAnnotationError } from '../src/index.js';

const P = 'example.com/';
const set = defineAnnotations(
  {
    id: {
      name: `${P}load-balancer-id`,
      type: 'string',
      pattern: /^lb-[0-9a-z]+$/,
      patternText: 'a load-balancer ID (lb-…)',
      description: 'Adopt this load balancer.',
    },
    name: { name: `${P}name`, type: 'string', description: 'Free text | with a pipe.' },
    proxyProtocol: { name: `${P}proxy-protocol`, type: 'boolean', default: false, description: 'PROXY v1.' },
    weight: { name: `${P}weight`, type: 'integer', min: 1, max: 10, default: 5, description: 'Weight.' },
    interval: {
      name: `${P}interval`,
      type: 'duration',
      minMs: 1000,
      maxMs: 3_600_000,
      default: 5000,
      description: 'Health-check period.',
    },
    algorithm: {
      name: `${P}algorithm`,
      type: 'enum',
      values: ['round-robin', 'source-hash'],
      description: 'Balancing.',
    },
    ranges: { name: `${P}source-ranges`, type: 'cidr-list', description: 'Allowed clients.' },
    ip: { name: `${P}ip`, type: 'ip', family: 'IPv4', description: 'Static address.' },
    ips: { name: `${P}ips`, type: 'ip-list', onePerFamily: true, description: 'Static addresses.' },
    tags: { name: `${P}tags`, type: 'map', default: {}, description: 'Cloud tags.' },
  },
  { prefix: P },
);

function svc(annotations: Record<string, string>): V1Service {
  return { metadata: { namespace: 'ns', name: 'web', annotations } };
}

describe('defineAnnotations', () => {
  it('gives defaults (declared, or passed at parse time) for absent annotations', () => {
    const r = set.parse(svc({}), { weight: 7 });
    expect(r).toEqual({
      ok: true,
      values: {
        id: undefined,
        name: undefined,
        proxyProtocol: false,
        weight: 7,
        interval: 5000,
        algorithm: undefined,
        ranges: undefined,
        ip: undefined,
        ips: undefined,
        tags: {},
      },
    });
  });

  it('parses a good value of every type into its typed, canonical form', () => {
    const values = set.parseOrThrow(
      svc({
        [`${P}load-balancer-id`]: 'lb-42',
        [`${P}name`]: 'any text',
        [`${P}proxy-protocol`]: 'True',
        [`${P}weight`]: '10',
        [`${P}interval`]: '1m30s',
        [`${P}algorithm`]: 'source-hash',
        [`${P}source-ranges`]: '10.1.2.3/8, 2001:db8::1/32',
        [`${P}ip`]: '192.168.001.002',
        [`${P}ips`]: '10.0.0.1,2001:DB8::1',
        [`${P}tags`]: 'team=web, env=prod,empty=',
      }),
    );
    expect(values).toEqual({
      id: 'lb-42',
      name: 'any text',
      proxyProtocol: true,
      weight: 10,
      interval: 90_000,
      algorithm: 'source-hash',
      ranges: ['10.0.0.0/8', '2001:db8::/32'],
      ip: '192.168.1.2',
      ips: ['10.0.0.1', '2001:db8::1'],
      tags: { team: 'web', env: 'prod', empty: '' },
    });
  });

  it.each([
    ['load-balancer-id', '.', 'is not a load-balancer ID (lb-…)'],
    ['load-balancer-id', '../servers', 'is not a load-balancer ID (lb-…)'],
    ['proxy-protocol', 'yes', 'is not "true" or "false"'],
    ['weight', '11', 'is not an integer from 1 to 10'],
    ['weight', '2.5', 'is not an integer from 1 to 10'],
    ['interval', '5', 'is not a duration (e.g. 500ms, 2s, 1m30s) from 1s to 1h'],
    ['interval', '500ms', 'is not a duration (e.g. 500ms, 2s, 1m30s) from 1s to 1h'],
    ['interval', '-2s', 'is negative'],
    ['algorithm', 'random', 'is not one of "round-robin", "source-hash"'],
    ['source-ranges', '10.0.0.0/33', '"10.0.0.0/33" is not a CIDR'],
    ['ip', '2001:db8::1', 'is not an IPv4 address'],
    ['ip', 'not-an-ip', 'is not an IPv4 address'],
    ['ips', '10.0.0.1,10.0.0.2', 'lists more than one IPv4 address'],
    ['ips', '10.0.0.1,x', '"x" is not an IP address'],
    ['tags', 'team', '"team" is not key=value'],
    ['tags', 'a=1,a=2', 'key "a" appears twice'],
    ['weight', '  ', 'is empty'],
  ])('rejects %s=%j, naming the annotation and the expected form', (key, value, fragment) => {
    const r = set.parse(svc({ [`${P}${key}`]: value }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]!.annotation).toBe(`${P}${key}`);
    expect(r.problems[0]!.value).toBe(value);
    expect(r.problems[0]!.message).toContain(`annotation ${P}${key}: ${JSON.stringify(value)}`);
    expect(r.problems[0]!.message).toContain(fragment);
  });

  it.each([
    ['ips', 'not-an-ip', 'is not an IP address'],
    ['source-ranges', '10.0.0.0/33', 'is not a CIDR'],
    ['tags', 'team', 'is not key=value'],
  ])('names a one-item value %s=%j once', (key, value, fragment) => {
    const r = set.parse(svc({ [`${P}${key}`]: value }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]!.message).toMatch(new RegExp(`^annotation ${P}${key}: "${value}" ${fragment}; expected `));
  });

  it('reports an unknown annotation under the prefix with the closest declared name, and leaves others alone', () => {
    const r = set.parse(
      svc({ [`${P}load-balancer-idd`]: 'lb-1', 'other.io/whatever': 'x', [`${P}zzzzzzzzzzzzzzzzzz`]: '1' }),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.message)).toEqual([
      `annotation ${P}load-balancer-idd is unknown (did you mean ${P}load-balancer-id?)`,
      expect.stringContaining(`annotation ${P}zzzzzzzzzzzzzzzzzz is unknown (one of ${P}load-balancer-id,`),
    ]);
  });

  it('collects every problem and parseOrThrow throws InvalidAnnotationError naming the Service', () => {
    const bad = svc({ [`${P}weight`]: '0', [`${P}algorithm`]: 'x' });
    let thrown: unknown;
    try {
      set.parseOrThrow(bad);
    } catch (err) {
      thrown = err;
    }
    const err = findError(new Error('wrapped', { cause: thrown }), InvalidAnnotationError);
    expect(err?.problems.map((p) => p.annotation)).toEqual([`${P}weight`, `${P}algorithm`]);
    expect(err?.message).toMatch(/^invalid annotations on service ns\/web: annotation example.com\/weight: "0"/);
  });

  it('accepts a bare annotation map', () => {
    expect(set.parseOrThrow({ [`${P}weight`]: '3' }).weight).toBe(3);
  });

  it('rejects bad declarations at definition time', () => {
    expect(() =>
      defineAnnotations({ a: { name: 'x/a', type: 'integer', min: 1, default: 0, description: '' } }),
    ).toThrow(/default 0 is out of its bounds/);
    expect(() =>
      defineAnnotations({ a: { name: 'x/a', type: 'enum', values: ['p'], default: 'q', description: '' } }),
    ).toThrow(/not one of its values/);
    expect(() => defineAnnotations({ a: { name: 'y/a', type: 'boolean', description: '' } }, { prefix: 'x/' })).toThrow(
      /outside the prefix/,
    );
  });

  it('renders the reference table from the same declarations', () => {
    const table = set.markdownTable().split('\n');
    expect(table[0]).toBe('| Annotation | Value | Default | Description |');
    expect(table).toContain(
      '| `example.com/interval` | a duration (e.g. 500ms, 2s, 1m30s) from 1s to 1h | `5s` | Health-check period. |',
    );
    expect(table).toContain('| `example.com/name` | a string | unset | Free text \\| with a pipe. |');
    expect(table).toContain(
      '| `example.com/load-balancer-id` | a load-balancer ID (lb-…) | unset | Adopt this load balancer. |',
    );
    expect(table).toHaveLength(2 + set.names.length);
  });
});

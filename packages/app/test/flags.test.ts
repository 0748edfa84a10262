import { describe, expect, it } from 'vitest';
import { type FlagError, FlagSet, formatHelp, parseFlags } from '../src/flags/flag-set.js';

function sets() {
  return [
    new FlagSet('generic')
      .string('cloud-provider', '', 'provider')
      .bool('leader-elect', true, 'elect')
      .bool('allow-untagged-cloud', false, 'untagged', { deprecated: 'going away' })
      .int('concurrent-service-syncs', 1, 'syncs')
      .float('kube-api-qps', 20, 'qps')
      .duration('node-monitor-period', 5000, 'period')
      .stringSlice('controllers', ['*'], 'controllers')
      .mapStringBool('feature-gates', {}, 'gates'),
    new FlagSet('global').int('v', 0, 'verbosity', { shorthand: 'v' }).bool('help', false, 'help', { shorthand: 'h' }),
  ];
}

describe('parseFlags', () => {
  it('returns defaults when nothing is given', () => {
    const p = parseFlags([], sets());
    expect(p.values).toMatchObject({
      'cloud-provider': '',
      'leader-elect': true,
      'concurrent-service-syncs': 1,
      'node-monitor-period': 5000,
      controllers: ['*'],
    });
    expect(p.changed.size).toBe(0);
  });

  it('accepts --flag=value, --flag value, bare bools, --bool=false and short flags', () => {
    const p = parseFlags(
      [
        '--cloud-provider=local',
        '--concurrent-service-syncs',
        '4',
        '--leader-elect=false',
        '--allow-untagged-cloud',
        '-v',
        '3',
        '--node-monitor-period=1m30s',
        '--kube-api-qps=12.5',
      ],
      sets(),
    );
    expect(p.values['cloud-provider']).toBe('local');
    expect(p.values['concurrent-service-syncs']).toBe(4);
    expect(p.values['leader-elect']).toBe(false);
    expect(p.values['allow-untagged-cloud']).toBe(true);
    expect(p.values.v).toBe(3);
    expect(p.values['node-monitor-period']).toBe(90_000);
    expect(p.values['kube-api-qps']).toBe(12.5);
    expect(p.warnings).toEqual(['Flag --allow-untagged-cloud has been deprecated, going away']);
    expect([...p.changed].sort()).toContain('v');
  });

  it('accepts Go bool spellings', () => {
    expect(parseFlags(['--leader-elect=F'], sets()).values['leader-elect']).toBe(false);
    expect(parseFlags(['--leader-elect=1'], sets()).values['leader-elect']).toBe(true);
  });

  it('replaces a list default on first use and appends afterwards', () => {
    const p = parseFlags(['--controllers=a,-b', '--controllers', 'c'], sets());
    expect(p.values.controllers).toEqual(['a', '-b', 'c']);
  });

  it('parses feature gates as key=bool pairs', () => {
    const p = parseFlags(['--feature-gates=A=true,B=false', '--feature-gates=C=1'], sets());
    expect(p.values['feature-gates']).toEqual({ A: true, B: false, C: true });
    expect(() => parseFlags(['--feature-gates=A'], sets())).toThrow(/missing bool value for A/);
  });

  it('collects positional arguments and stops at --', () => {
    const p = parseFlags(['extra', '--v=1', '--', '--not-a-flag'], sets());
    expect(p.args).toEqual(['extra', '--not-a-flag']);
  });

  it('names the flag in one error for unknown flags and bad values', () => {
    expect(() => parseFlags(['--nope=1'], sets())).toThrow('unknown flag: --nope');
    expect(() => parseFlags(['--concurrent-service-syncs=many'], sets())).toThrow(
      'invalid argument "many" for "--concurrent-service-syncs" flag: strconv.ParseInt: parsing "many": invalid syntax',
    );
    expect(() => parseFlags(['--node-monitor-period=5'], sets())).toThrow(
      'invalid argument "5" for "--node-monitor-period" flag: time: missing unit in duration "5"',
    );
    expect(() => parseFlags(['--leader-elect=maybe'], sets())).toThrow(/for "--leader-elect" flag/);
    expect(() => parseFlags(['--cloud-provider'], sets())).toThrow('flag needs an argument: --cloud-provider');
    try {
      parseFlags(['--kube-api-qps=x'], sets());
      expect.unreachable();
    } catch (e) {
      expect((e as FlagError).flag).toBe('kube-api-qps');
    }
  });

  it('runs flag validators and reports through the flag', () => {
    const s = [
      new FlagSet('x').int('port', 1, 'p', {
        validate: (v) => {
          if (v > 65535) throw new Error('too big');
        },
      }),
    ];
    expect(() => parseFlags(['--port=70000'], s)).toThrow('invalid argument "70000" for "--port" flag: too big');
  });

  it('hands each final value to its bind callback (vendor flags)', () => {
    let region = '';
    let retries = -1;
    const vendor = new FlagSet('mycloud')
      .string('mycloud-region', 'eu-1', 'region', { bind: (v) => (region = v) })
      .int('mycloud-retries', 3, 'retries', { bind: (v) => (retries = v) });
    parseFlags(['--mycloud-region=us-2'], [...sets(), vendor]);
    expect(region).toBe('us-2');
    expect(retries).toBe(3);
  });

  it('rejects a flag defined twice across sets', () => {
    expect(() =>
      parseFlags([], [new FlagSet('a').bool('x', false, ''), new FlagSet('b').bool('x', false, '')]),
    ).toThrow(/flag redefined: x/);
  });

  it('renders help as pflag: aligned usage column, zero defaults omitted, deprecated flags hidden', () => {
    const help = formatHelp(sets());
    expect(help.startsWith('\nGeneric flags:\n\n')).toBe(true);
    expect(help).toContain('      --node-monitor-period duration   period (default 5s)\n');
    expect(help).toContain('      --cloud-provider string          provider\n');
    expect(help).toContain('      --leader-elect                   elect (default true)\n');
    expect(help).toContain('\nGlobal flags:\n\n  -h, --help    help\n  -v, --v int   verbosity\n');
    expect(help).not.toContain('allow-untagged-cloud');
  });

  it('indents continuation lines to the usage column and shows typeName, noOptDefVal and defaultText', () => {
    const set = new FlagSet('global')
      .string('version', 'false', 'prints', { typeName: 'version', noOptDefVal: 'true', defaultText: '' })
      .stringArray('sni', [], 'one\ntwo', { typeName: 'namedCertKey', defaultText: '[]' });
    expect(formatHelp([set])).toBe(
      '\nGlobal flags:\n\n' +
        '      --sni namedCertKey         one\n                                 two (default [])\n' +
        '      --version version[=true]   prints\n',
    );
    expect(parseFlags(['--version'], [set]).values.version).toBe('true');
    expect(parseFlags(['--version=raw'], [set]).values.version).toBe('raw');
  });
});

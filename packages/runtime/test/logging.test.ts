import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, getVerbosity, setLogFormat, setLogWriter, setVerbosity } from '../src/logging.js';

const lines: string[] = [];
setLogWriter((l) => lines.push(l));

afterEach(() => {
  lines.length = 0;
  setVerbosity(0);
  setLogFormat('text');
});

describe('klog-style logging', () => {
  it('prints info, warnings and errors as klog-like text lines with quoted key/values', () => {
    const log = createLogger('cloud-node-controller');
    log.info('Initializing node', { node: 'n1', attempt: 2 });
    log.warn('slow cloud', { ms: 1500 });
    log.error(new Error('boom'), 'sync failed', { node: 'n1' });
    expect(lines[0]).toMatch(/^I\d{4}-\d\d-\d\dT[\d:.]+Z cloud-node-controller\] "Initializing node" node="n1" attempt=2$/);
    expect(lines[1]).toMatch(/^W.* "slow cloud" ms=1500$/);
    expect(lines[2]).toMatch(/^E.* "sync failed" node="n1" err="boom"$/);
  });

  it('gates v(n) lines on the global verbosity (--v)', () => {
    const log = createLogger('x');
    expect(log.v(2).enabled).toBe(false);
    log.v(2).info('hidden');
    setVerbosity(2);
    expect(getVerbosity()).toBe(2);
    expect(log.v(2).enabled).toBe(true);
    log.v(2).info('shown');
    log.v(3).info('still hidden');
    expect(lines.map((l) => l.includes('shown'))).toEqual([true]);
    setVerbosity(-4);
    expect(getVerbosity()).toBe(0);
  });

  it('writes one JSON object per line with --logging-format=json', () => {
    setLogFormat('json');
    const log = createLogger('app').with({ controller: 'route' }, 'child');
    log.info('hello', { n: 1 });
    log.error(new Error('bad'), 'failed');
    const [a, b] = lines.map((l) => JSON.parse(l));
    expect(a).toMatchObject({ logger: 'app/child', msg: 'hello', controller: 'route', n: 1 });
    expect(a.level).toBeUndefined();
    expect(typeof a.ts).toBe('number');
    expect(b).toMatchObject({ logger: 'app/child', msg: 'failed', level: 'error', err: 'bad' });
  });

  it('never throws on values JSON cannot represent', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    createLogger('x').info('odd values', { cyclic, big: 10n });
    setLogFormat('json');
    createLogger('x').info('big', { big: 10n });
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!).big).toBe('10');
  });
});

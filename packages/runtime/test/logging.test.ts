import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, getVerbosity, setLogFormat, setLogWriter, setVerbosity } from '../src/logging.js';

const lines: string[] = [];
setLogWriter((l) => lines.push(l));

afterEach(() => {
  lines.length = 0;
  setVerbosity(0);
  setLogFormat('text');
});

/** Parses a klog text line (k8s.io/klog/v2 formatHeader) into its header fields and the rest. */
function parseKlog(line: string) {
  const m = /^([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}) +(\d+) ([^ :]+):(\d+)\] (.*)$/.exec(line);
  if (!m) throw new Error(`not a klog line: ${line}`);
  return {
    severity: m[1],
    month: Number(m[2]),
    day: Number(m[3]),
    threadID: Number(m[8]),
    file: m[9],
    line: Number(m[10]),
    rest: m[11],
  };
}

describe('klog logging', () => {
  it('prints info, warnings and errors as klog text lines: header, quoted message, key/values', () => {
    const log = createLogger('cloud-node-controller');
    const before = new Date();
    log.info('Initializing node', { node: 'n1', attempt: 2 });
    log.warn('slow cloud', { ms: 1500 });
    log.error(new Error('boom'), 'sync failed', { node: 'n1' });
    const [info, warn, error] = lines.map(parseKlog);
    // klog.go formatHeader: Lmmdd hh:mm:ss.uuuuuu threadid file:line]
    expect(info).toMatchObject({ severity: 'I', threadID: process.pid, file: 'logging.test.ts' });
    expect(info!.month).toBe(before.getMonth() + 1);
    expect(info!.day).toBe(before.getDate());
    expect(info!.rest).toBe('"Initializing node" logger="cloud-node-controller" node="n1" attempt=2');
    expect(warn).toMatchObject({ severity: 'W', rest: '"slow cloud" logger="cloud-node-controller" ms=1500' });
    // klog.ErrorS puts err= right after the message.
    expect(error).toMatchObject({
      severity: 'E',
      rest: '"sync failed" err="boom" logger="cloud-node-controller" node="n1"',
    });
    // vitest transforms this file, so only the order of the line numbers is stable here.
    expect(error!.line).toBeGreaterThan(info!.line);
  });

  it('pads the thread id to 7 columns and the time to microseconds, as klog does', () => {
    createLogger('x').info('m');
    expect(lines[0]).toMatch(/^I\d{4} \d\d:\d\d:\d\d\.\d{6} [ \d]{7} logging\.test\.ts:\d+\] "m" logger="x"$/);
    expect(lines[0]!.slice(22, 29).trim()).toBe(String(process.pid));
  });

  it('gives each line its own time to the microsecond, within a second and across seconds and days', () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'], now: new Date('2026-03-04T05:06:07.123Z') });
    try {
      const log = createLogger('x');
      const expected: string[] = [];
      const at = () => {
        // klog's local `mmdd hh:mm:ss.uuuuuu`, from the clock the line is written at.
        const d = new Date();
        const p = (v: number) => String(v).padStart(2, '0');
        return `${p(d.getMonth() + 1)}${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${String(d.getMilliseconds() * 1000).padStart(6, '0')}`;
      };
      for (const stepMs of [0, 500, 376, 1, 1000, 86_400_000, 0]) {
        vi.advanceTimersByTime(stepMs);
        expected.push(at());
        log.info('m');
      }
      expect(lines.map((l) => l.slice(1, 21))).toEqual(expected);
      expect(new Set(expected).size).toBe(6);
    } finally {
      vi.useRealTimers();
    }
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

  it('writes component-base JSON with --logging-format=json: ts (ms), caller, msg, v or err, key/values', () => {
    setLogFormat('json');
    const log = createLogger('app').with({ controller: 'route' }, 'child');
    const before = Date.now();
    log.info('hello', { n: 1 });
    log.error(new Error('bad'), 'failed');
    setVerbosity(4);
    log.v(4).info('detail');
    const [a, b, c] = lines.map((l) => JSON.parse(l));
    // Field order as zap writes it: ts, caller, msg, then v (info) or err (error), then the key/values.
    expect(Object.keys(a)).toEqual(['ts', 'caller', 'msg', 'v', 'logger', 'controller', 'n']);
    expect(a).toMatchObject({ msg: 'hello', v: 0, logger: 'app/child', controller: 'route', n: 1 });
    expect(a.ts).toBeGreaterThanOrEqual(before);
    expect(a.ts).toBeLessThan(before + 60_000);
    expect(a.caller).toMatch(/^test\/logging\.test\.ts:\d+$/);
    expect(Object.keys(b)).toEqual(['ts', 'caller', 'msg', 'err', 'logger', 'controller']);
    expect(b).toMatchObject({ msg: 'failed', err: 'bad' });
    expect(b.v).toBeUndefined();
    expect(c).toMatchObject({ msg: 'detail', v: 4 });
    const line = (caller: string) => Number(caller.split(':').pop());
    expect(line(b.caller)).toBeGreaterThan(line(a.caller));
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

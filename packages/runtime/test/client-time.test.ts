import { V1MicroTime } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { microTimeNow, parseTime, toMicroTime } from '../src/client/time.js';

describe('MicroTime helpers', () => {
  it('microTimeNow serialises with six fraction digits', () => {
    const t = microTimeNow();
    expect(t).toBeInstanceOf(V1MicroTime);
    expect(JSON.stringify({ t })).toMatch(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"/);
    expect(Math.abs(t.getTime() - Date.now())).toBeLessThan(1000);
  });

  it('toMicroTime accepts Date, string and epoch ms', () => {
    expect(toMicroTime(new Date('2026-01-02T03:04:05.123Z')).toISOString()).toBe('2026-01-02T03:04:05.123000Z');
    expect(toMicroTime('2026-01-02T03:04:05.123456Z').toISOString()).toBe('2026-01-02T03:04:05.123000Z');
    expect(toMicroTime(0).toISOString()).toBe('1970-01-01T00:00:00.000000Z');
    expect(() => toMicroTime('' as string)).toThrow(/required/);
  });

  it('parseTime reads strings (as informers and Lease reads deliver) and Dates', () => {
    expect(parseTime('2026-01-02T03:04:05Z')?.getTime()).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(parseTime('2026-01-02T03:04:05.123456Z')?.getTime()).toBe(Date.UTC(2026, 0, 2, 3, 4, 5, 123));
    const d = new Date(5);
    const p = parseTime(d);
    expect(p?.getTime()).toBe(5);
    expect(p).not.toBe(d);
    expect(parseTime(undefined)).toBeUndefined();
    expect(parseTime(null)).toBeUndefined();
    expect(parseTime('')).toBeUndefined();
  });

  it('parseTime rejects garbage, quoting it', () => {
    expect(() => parseTime('yesterday')).toThrow(/not a valid time: "yesterday"/);
    expect(() => parseTime({} as never)).toThrow(/expected a string, Date or number/);
  });
});

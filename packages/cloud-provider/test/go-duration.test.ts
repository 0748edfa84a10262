import { describe, expect, it } from 'vitest';
import { formatGoDuration, parseGoDuration } from '../src/helpers/go-duration.js';

describe('Go durations', () => {
  it.each([
    ['0', 0],
    ['1s', 1000],
    ['1m30s', 90_000],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['-2s', -2000],
    ['1h2m3s4ms', 3_723_004],
    ['500us', 0.5],
    ['250µs', 0.25],
    ['12h', 43_200_000],
  ])('parses %s', (s, ms) => expect(parseGoDuration(s)).toBeCloseTo(ms, 9));

  it.each(['', '1', 'abc', '1x', '1s2', '--1s', 's'])('rejects %j with Go-style messages', (s) => {
    expect(() => parseGoDuration(s)).toThrow(/^time: /);
  });

  it('formats like Go', () => {
    expect(formatGoDuration(0)).toBe('0s');
    expect(formatGoDuration(10_000)).toBe('10s');
    expect(formatGoDuration(90_000)).toBe('1m30s');
    expect(formatGoDuration(300_000)).toBe('5m0s');
    expect(formatGoDuration(43_200_000)).toBe('12h0m0s');
    expect(formatGoDuration(250)).toBe('250ms');
  });
});

import { parseGoDuration } from '@ccm-kit/cloud-provider';
import { formatGoDuration } from '@ccm-kit/cloud-provider/internal';
import { describe, expect, it } from 'vitest';
import * as runtime from '../src/index.js';
import { timerDelayMs } from '../src/wait/sleep.js';

describe('Go durations in the runtime', () => {
  it('are the cloud-provider functions, re-exported under the same names', () => {
    expect(runtime.parseGoDuration).toBe(parseGoDuration);
    expect(runtime.formatGoDuration).toBe(formatGoDuration);
  });

  it('timerDelayMs rounds a fractional duration up to whole ms, at least 1', () => {
    expect(timerDelayMs(parseGoDuration('3.0005s'))).toBe(3001);
    expect(timerDelayMs(parseGoDuration('0.5ms'))).toBe(1);
    expect(timerDelayMs(parseGoDuration('10s'))).toBe(10_000);
    expect(timerDelayMs(0)).toBe(1);
  });
});

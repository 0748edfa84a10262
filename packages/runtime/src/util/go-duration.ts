/**
 * Go `time.Duration` text, as Kubernetes flags and environment variables take it (`1m30s`, `300ms`, `1.5h`, `0`),
 * and as upstream prints it in messages. Parsing follows Go's `time.ParseDuration`: a possibly signed sequence
 * of decimal numbers, each with an optional fraction and a unit suffix (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`);
 * `0` alone needs no unit. Formatting follows `time.Duration.String()`.
 */

// The parser lives in @ccm-kit/cloud-provider (typed Service annotations take Go durations too).
export { parseGoDuration } from '@ccm-kit/cloud-provider';

function fraction(value: bigint, digits: number): string {
  // value in units of 10^-digits; print integer part and trimmed fraction.
  const scale = 10n ** BigInt(digits);
  const whole = value / scale;
  let frac = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  if (frac !== '') frac = '.' + frac;
  return `${whole}${frac}`;
}

/**
 * Go's `time.Duration(ns).String()` for a duration given in **milliseconds** (fractions allowed; rounded to
 * whole nanoseconds). Negative durations get a leading `-`.
 */
export function formatGoDuration(ms: number): string {
  let ns = BigInt(Math.round(ms * 1e6));
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  if (neg) ns = -ns;
  let out: string;
  if (ns < 1_000n) out = `${ns}ns`;
  else if (ns < 1_000_000n) out = `${fraction(ns, 3)}µs`;
  else if (ns < 1_000_000_000n) out = `${fraction(ns, 6)}ms`;
  else {
    const hours = ns / 3_600_000_000_000n;
    const rem = ns % 3_600_000_000_000n;
    const minutes = rem / 60_000_000_000n;
    const secs = fraction(rem % 60_000_000_000n, 9) + 's';
    if (hours > 0n) out = `${hours}h${minutes}m${secs}`;
    else if (minutes > 0n) out = `${minutes}m${secs}`;
    else out = secs;
  }
  return neg ? '-' + out : out;
}

/**
 * A duration in ms as a Node.js timer delay. Go durations have nanosecond precision (`3.0005s` is 3000.5 ms,
 * `0.5ms` is 0.5) but `AbortSignal.timeout` accepts whole ms only and throws `ERR_OUT_OF_RANGE` otherwise:
 * round **up**, so that a deadline is never shortened, to at least 1 ms (Node.js's own minimum delay).
 */
export function timerDelayMs(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

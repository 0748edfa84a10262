/**
 * Formats a duration the way Go's `time.Duration.String()` does (`1.5s`, `2m3.25s`, `850µs`, `0s`), for
 * messages that upstream builds with `%v` of a duration (for example route `FailedToCreateRoute` events).
 */

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

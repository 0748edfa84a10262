/**
 * Go `time.Duration` text (`1m30s`, `300ms`, `1.5h`, `0`), as Kubernetes flags, environment variables and Service
 * annotations take it and as upstream prints it in messages. Parsing follows Go's `time.ParseDuration`: a possibly
 * signed sequence of decimal numbers, each with an optional fraction and a unit suffix (`ns`, `us`, `µs`, `ms`,
 * `s`, `m`, `h`); `0` alone needs no unit. Formatting follows `time.Duration.String()`. Used by Service
 * annotations here, and by the flags and messages of the other packages through `@ccm-kit/runtime`, which
 * re-exports both functions.
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go duration string.
 * @returns the duration in **milliseconds** (may be fractional below 1 ms).
 * @throws Error `time: invalid duration "<s>"` (Go's message) for malformed input, or `time: missing unit in duration "<s>"`.
 */
export function parseGoDuration(input: string): number {
  let s = input;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new Error(`time: invalid duration ${JSON.stringify(input)}`);
  let total = 0;
  const re = /^(\d+\.?\d*|\.\d+)([a-zµμ]*)/;
  while (s.length > 0) {
    const m = re.exec(s);
    if (!m) throw new Error(`time: invalid duration ${JSON.stringify(input)}`);
    const [whole, num, unit] = m as unknown as [string, string, string];
    if (unit === '') throw new Error(`time: missing unit in duration ${JSON.stringify(input)}`);
    const ms = UNIT_MS[unit];
    if (ms === undefined)
      throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(input)}`);
    total += Number(num) * ms;
    s = s.slice(whole.length);
  }
  return sign * total;
}

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

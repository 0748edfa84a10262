/**
 * Go `time.Duration` strings, as Kubernetes flags take them (`1m30s`, `300ms`, `1.5h`, `0`).
 * Follows Go's `time.ParseDuration`: a possibly signed sequence of decimal numbers, each with an optional
 * fraction and a unit suffix (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`); `0` alone needs no unit.
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

/**
 * Formats milliseconds the way Go prints a `time.Duration` (`1m30s`, `500ms`, `0s`), for help text and defaults.
 */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  if (rest < 1000) return (neg ? '-' : '') + `${+rest.toFixed(6)}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = +(rest / 1000).toFixed(9);
  let out = '';
  if (h > 0) out += `${h}h`;
  if (h > 0 || m > 0) out += `${m}m`;
  out += `${s}s`;
  return (neg ? '-' : '') + out;
}

/**
 * Go `time.Duration` text (`1m30s`, `300ms`, `1.5h`, `0`), parsed as Go's `time.ParseDuration` does: a possibly
 * signed sequence of decimal numbers, each with an optional fraction and a unit suffix (`ns`, `us`, `µs`, `ms`,
 * `s`, `m`, `h`); `0` alone needs no unit. Used by Service annotations here and by the flags of
 * `@ccm-kit/app` (through `@ccm-kit/runtime`, which re-exports it with `formatGoDuration`).
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

/**
 * Parses the durations envtest reads from the environment
 * (`KUBEBUILDER_CONTROLPLANE_START_TIMEOUT`, `KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT`).
 * Follows Go's `time.ParseDuration` (controller-runtime `pkg/envtest/server.go` reads them with it),
 * and also accepts a bare number, read as milliseconds.
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
 * Parses a Go duration (`"90s"`, `"1m30s"`, `"1.5h"`, `"250ms"`) or a bare number of milliseconds (`"5000"`).
 * Returns milliseconds.
 * @throws Error naming `what` when the text is neither.
 */
export function parseDurationMs(text: string, what = 'duration'): number {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  const sign = s.startsWith('-') ? -1 : 1;
  if (s.startsWith('-') || s.startsWith('+')) pos = 1;
  if (pos >= s.length) throw new Error(`${what}: invalid duration ${JSON.stringify(text)}`);
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) {
      throw new Error(
        `${what}: invalid duration ${JSON.stringify(text)} (use a Go duration such as "90s" or "1m30s", or milliseconds)`,
      );
    }
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    pos = re.lastIndex;
  }
  return sign * total;
}

/**
 * Reads a duration from `env[name]`: milliseconds, or `fallbackMs` when unset or empty.
 * @throws Error naming the variable when it is set but not a valid non-negative duration.
 */
export function durationFromEnv(
  name: string,
  fallbackMs: number,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallbackMs;
  const ms = parseDurationMs(raw, name);
  if (ms < 0) throw new Error(`${name}: duration must not be negative, got ${JSON.stringify(raw)}`);
  return ms;
}

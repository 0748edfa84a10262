/**
 * Go-style durations for the config file and annotations: `500ms`, `2s`, `1m30s`, `1h`.
 * Units: `ms`, `s`, `m`, `h`; decimals allowed (`1.5s`). Results are in milliseconds.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration into milliseconds (rounded to a whole number).
 * @throws Error `invalid duration "<text>" (expected e.g. 500ms, 2s, 1m30s)` when `text` is not one.
 */
export function parseDurationMs(text: string): number {
  const s = text.trim();
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < s.length) {
    part.lastIndex = pos;
    const m = part.exec(s);
    if (!m) break;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    pos = part.lastIndex;
  }
  if (s === '' || pos !== s.length)
    throw new Error(`invalid duration "${text}" (expected e.g. 500ms, 2s, 1m30s)`);
  return Math.round(total);
}

/** `1500` → `1.5s`, `250` → `250ms`, for messages and docs. */
export function formatDurationMs(ms: number): string {
  return ms < 1_000 ? `${ms}ms` : `${ms / 1_000}s`;
}

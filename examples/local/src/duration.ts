/**
 * Go durations for the config file and annotations (`500ms`, `2s`, `1m30s`, `1h`), in milliseconds,
 * through @ccm-kit/runtime's Go-duration parser, with this provider's error text.
 */
import { parseGoDuration } from '@ccm-kit/runtime';

/**
 * Parses a non-negative duration into milliseconds (rounded to a whole number).
 * @throws Error `invalid duration "<text>" (expected e.g. 500ms, 2s, 1m30s)` when `text` is not one.
 */
export function parseDurationMs(text: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(text.trim());
  } catch {
    ms = Number.NaN;
  }
  if (!(ms >= 0)) throw new Error(`invalid duration "${text}" (expected e.g. 500ms, 2s, 1m30s)`);
  return Math.round(ms);
}

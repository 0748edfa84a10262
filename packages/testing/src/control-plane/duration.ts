/**
 * Parses the durations envtest reads from the environment
 * (`KUBEBUILDER_CONTROLPLANE_START_TIMEOUT`, `KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT`).
 * Follows Go's `time.ParseDuration` (controller-runtime `pkg/envtest/server.go` reads them with it),
 * and also accepts a bare number, read as milliseconds.
 */

import { parseGoDuration } from '@ccm-kit/runtime';

/**
 * Parses a Go duration (`"90s"`, `"1m30s"`, `"1.5h"`, `"250ms"`) or a bare number of milliseconds (`"5000"`).
 * Returns milliseconds.
 * @throws Error naming `what` when the text is neither.
 */
export function parseDurationMs(text: string, what = 'duration'): number {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  try {
    return parseGoDuration(s);
  } catch (err) {
    throw new Error(
      `${what}: invalid duration ${JSON.stringify(text)} (use a Go duration such as "90s" or "1m30s", or milliseconds): ${(err as Error).message}`,
      { cause: err },
    );
  }
}

/**
 * Reads a duration from `env[name]`: milliseconds, or `fallbackMs` when unset or empty.
 * @throws Error naming the variable when it is set but not a valid non-negative duration.
 */
export function durationFromEnv(name: string, fallbackMs: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallbackMs;
  const ms = parseDurationMs(raw, name);
  if (ms < 0) throw new Error(`${name}: duration must not be negative, got ${JSON.stringify(raw)}`);
  return ms;
}

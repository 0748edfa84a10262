/**
 * Random jitter, as apimachinery's `wait.Jitter`.
 */

/**
 * Returns `durationMs + random() * maxFactor * durationMs`: a duration between `durationMs` and
 * `durationMs * (1 + maxFactor)`. A `maxFactor` ≤ 0 means 1.0, as upstream.
 * Follows `k8s.io/apimachinery/pkg/util/wait/jitter.go`.
 *
 * @param durationMs - the base duration in milliseconds.
 * @param maxFactor - the largest fraction added.
 * @param random - the source of randomness in [0, 1) (default `Math.random`).
 */
export function jitter(durationMs: number, maxFactor: number, random: () => number = Math.random): number {
  const factor = maxFactor > 0 ? maxFactor : 1.0;
  return durationMs + random() * factor * durationMs;
}

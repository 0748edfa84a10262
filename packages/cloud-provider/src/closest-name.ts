/**
 * The closest of a list of names to a mistyped one, for "did you mean …" in error messages (annotation
 * names, `--cloud-provider`).
 */

/** Levenshtein distance: insertions, deletions and substitutions of one character each count 1. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The name in `names` nearest to `name`, or undefined when even the nearest differs in more than a third of
 * `name` (at least 2 edits are always allowed): a plausible typo, not any name.
 */
export function closestName(name: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of names) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

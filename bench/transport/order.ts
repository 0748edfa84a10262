/** The order in which an A/B benchmark runs its variants: ABBA, so a drift in load falls on both alike. */

/** Round `rep` (from 0) of an ABBA schedule: `items` in order in even rounds, reversed in odd ones. */
export function abbaRound<T>(items: readonly T[], rep: number): T[] {
  return rep % 2 === 0 ? [...items] : [...items].reverse();
}

/** Every round of `reps` ABBA rounds, flattened: A B C, C B A, A B C, … */
export function abbaOrder<T>(items: readonly T[], reps: number): T[] {
  return Array.from({ length: reps }, (_, rep) => abbaRound(items, rep)).flat();
}

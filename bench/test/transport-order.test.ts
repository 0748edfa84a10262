import { describe, expect, it } from 'vitest';
import { abbaOrder, abbaRound } from '../transport/order.ts';

describe('ABBA order of the A/B benchmarks', () => {
  it('alternates the order round by round', () => {
    expect(abbaRound(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(abbaRound(['a', 'b', 'c'], 1)).toEqual(['c', 'b', 'a']);
    expect(abbaOrder(['a', 'b'], 3)).toEqual(['a', 'b', 'b', 'a', 'a', 'b']);
  });

  it('runs every item reps times and leaves the input as it was', () => {
    const items = ['x', 'y', 'z'] as const;
    const order = abbaOrder(items, 4);
    expect(order).toHaveLength(12);
    for (const x of items) expect(order.filter((o) => o === x)).toHaveLength(4);
    expect(items).toEqual(['x', 'y', 'z']);
    expect(abbaOrder(items, 0)).toEqual([]);
  });
});

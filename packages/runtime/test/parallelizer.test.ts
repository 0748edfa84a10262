/** parallelizeUntil, as client-go util/workqueue/parallelizer_test.go. */
import { parallelizeUntil } from '@ccm-kit/runtime/workqueue';
import { describe, expect, it } from 'vitest';

const tick = () => new Promise((r) => setTimeout(r, 1));

/** Runs parallelizeUntil with pieces that take a tick and records concurrency. */
async function run(workers: number, pieces: number, signal?: AbortSignal) {
  const done: number[] = [];
  let active = 0;
  let max = 0;
  await parallelizeUntil(signal, workers, pieces, async (piece) => {
    active++;
    max = Math.max(max, active);
    await tick();
    done.push(piece);
    active--;
  });
  return { done: done.sort((a, b) => a - b), max };
}

describe('parallelizeUntil', () => {
  it('processes every piece exactly once with at most `workers` at a time', async () => {
    const { done, max } = await run(3, 10);
    expect(done).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(max).toBe(3);
  });

  it('starts no more workers than pieces', async () => {
    const { done, max } = await run(16, 2);
    expect(done).toEqual([0, 1]);
    expect(max).toBe(2);
  });

  it('processes nothing with 0 workers or 0 pieces, as upstream', async () => {
    expect((await run(0, 5)).done).toEqual([]);
    expect((await run(-1, 5)).done).toEqual([]);
    expect((await run(4, 0)).done).toEqual([]);
  });

  it('hands out no new piece once the signal aborts; running pieces finish', async () => {
    const ac = new AbortController();
    const started: number[] = [];
    let finished = 0;
    await parallelizeUntil(ac.signal, 2, 10, async (piece) => {
      started.push(piece);
      if (piece === 1) ac.abort();
      await tick();
      finished++;
    });
    expect(started).toEqual([0, 1]);
    expect(finished).toBe(2);
  });

  it('processes nothing when the signal has already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    expect((await run(2, 5, ac.signal)).done).toEqual([]);
  });

  it('a throwing piece stops the hand-out and the first error is thrown after running pieces finish', async () => {
    const started: number[] = [];
    let finished = 0;
    const p = parallelizeUntil(undefined, 2, 10, async (piece) => {
      started.push(piece);
      if (piece === 0) throw new Error('piece 0 failed');
      await tick();
      finished++;
    });
    await expect(p).rejects.toThrow('piece 0 failed');
    expect(started).toEqual([0, 1]);
    expect(finished).toBe(1);
  });
});

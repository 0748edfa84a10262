import { describe, expect, it } from 'vitest';
import { ClientRateLimiter } from '../src/client/rate-limiter.js';

function fakeTime() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    clock: { now: () => now },
    sleeps,
    advance: (ms: number) => {
      now += ms;
    },
    sleep: async (ms: number, signal?: AbortSignal) => {
      sleeps.push(ms);
      if (signal?.aborted) return false;
      now += ms;
      return true;
    },
  };
}

describe('ClientRateLimiter', () => {
  it('lets a burst through, then spaces requests 1/qps apart in arrival order', async () => {
    const t = fakeTime();
    const rl = new ClientRateLimiter(10, 3, t);
    for (let i = 0; i < 3; i++) await rl.wait();
    expect(t.sleeps).toEqual([]);
    await rl.wait();
    expect(t.sleeps).toHaveLength(1);
    expect(t.sleeps[0]).toBeCloseTo(100, 5);
  });

  it('queues concurrent waiters at increasing delays', async () => {
    const t = fakeTime();
    const rl = new ClientRateLimiter(5, 1, {
      clock: t.clock,
      sleep: async (ms) => {
        t.sleeps.push(ms);
        return true;
      },
    });
    await Promise.all([rl.wait(), rl.wait(), rl.wait()]);
    expect(t.sleeps.map((ms) => Math.round(ms))).toEqual([200, 400]);
  });

  it('tryAccept never waits', () => {
    const t = fakeTime();
    const rl = new ClientRateLimiter(1, 2, t);
    expect([rl.tryAccept(), rl.tryAccept(), rl.tryAccept()]).toEqual([true, true, false]);
    t.advance(1000);
    expect(rl.tryAccept()).toBe(true);
  });

  it('throws the abort reason when cancelled', async () => {
    const rl = new ClientRateLimiter(1, 1);
    await rl.wait();
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('bye')), 20);
    await expect(rl.wait(ac.signal)).rejects.toThrow('bye');
    await expect(rl.wait(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });

  it('validates qps and burst', () => {
    expect(() => new ClientRateLimiter(0, 1)).toThrow(/qps/);
    expect(() => new ClientRateLimiter(1, 0)).toThrow(/burst/);
    expect(() => new ClientRateLimiter(1, 1.5)).toThrow(/burst/);
  });
});

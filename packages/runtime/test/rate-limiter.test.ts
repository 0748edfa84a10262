import {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  itemExponentialFailureRateLimiter,
  itemFastSlowRateLimiter,
  maxOfRateLimiter,
  withMaxWaitRateLimiter,
} from '@ccm-kit/runtime/workqueue';
import { routeQueueRateLimiter, TokenBucket } from '@ccm-kit/runtime/internal';
import { describe, expect, it } from 'vitest';

function manualClock(start = 1_000_000) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

describe('itemExponentialFailureRateLimiter', () => {
  it('doubles per failure from the base delay and caps at the max', () => {
    const rl = itemExponentialFailureRateLimiter<string>(5, 1000);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(() => rl.when('one'))).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1000]);
    expect(rl.when('one')).toBe(1000);
    expect(rl.numRequeues('one')).toBe(10);
  });

  it('counts items separately and forget resets one item', () => {
    const rl = itemExponentialFailureRateLimiter<string>(1, 1000);
    rl.when('a');
    rl.when('a');
    rl.when('b');
    expect(rl.numRequeues('a')).toBe(2);
    expect(rl.numRequeues('b')).toBe(1);
    rl.forget('a');
    expect(rl.numRequeues('a')).toBe(0);
    expect(rl.when('a')).toBe(1);
    expect(rl.numRequeues('b')).toBe(1);
  });

  it('returns the max once the exponent overflows', () => {
    const rl = itemExponentialFailureRateLimiter<string>(1, 1e300);
    let last = 0;
    for (let i = 0; i < 1100; i++) last = rl.when('x');
    expect(last).toBe(1e300);
  });

  it('rejects negative delays, naming the field', () => {
    expect(() => itemExponentialFailureRateLimiter(-1, 10)).toThrow(/baseDelayMs/);
    expect(() => itemExponentialFailureRateLimiter(1, Number.NaN)).toThrow(/maxDelayMs/);
  });
});

describe('itemFastSlowRateLimiter', () => {
  it('gives the fast delay for the first attempts, then the slow one', () => {
    const rl = itemFastSlowRateLimiter<string>(5, 10_000, 3);
    expect([1, 2, 3, 4, 5].map(() => rl.when('a'))).toEqual([5, 5, 5, 10_000, 10_000]);
    expect(rl.numRequeues('a')).toBe(5);
    rl.forget('a');
    expect(rl.when('a')).toBe(5);
    expect(() => itemFastSlowRateLimiter(1, 2, -1)).toThrow(/maxFastAttempts/);
  });
});

describe('TokenBucket (golang.org/x/time/rate reservations)', () => {
  it('starts full, then makes each reservation wait its turn', () => {
    const c = manualClock();
    const b = new TokenBucket(10, 3, c);
    expect([b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 0]);
    expect(b.reserve()).toBeCloseTo(100);
    expect(b.reserve()).toBeCloseTo(200);
    expect(b.tokensAt()).toBeCloseTo(-2);
    c.advance(250);
    // -2 + 2.5 tokens = 0.5: one more reservation waits 50 ms.
    expect(b.reserve()).toBeCloseTo(50);
  });

  it('refills no higher than the burst', () => {
    const c = manualClock();
    const b = new TokenBucket(1, 2, c);
    b.reserve();
    b.reserve();
    c.advance(3_600_000);
    expect(b.tokensAt()).toBe(2);
  });

  it('allow takes a token only when one is there', () => {
    const c = manualClock();
    const b = new TokenBucket(1 / 300, 2, c);
    expect(b.allow()).toBe(true);
    expect(b.allow()).toBe(true);
    expect(b.allow()).toBe(false);
    c.advance(299_000);
    expect(b.allow()).toBe(false);
    c.advance(1_000);
    expect(b.allow()).toBe(true);
    expect(b.allow()).toBe(false);
  });

  it('validates qps and burst', () => {
    expect(() => new TokenBucket(0, 1)).toThrow(/qps/);
    expect(() => new TokenBucket(1, 0)).toThrow(/burst/);
    expect(() => new TokenBucket(1, 1.5)).toThrow(/burst/);
    expect(new TokenBucket(Number.POSITIVE_INFINITY, 1).reserve()).toBe(0);
  });
});

describe('bucketRateLimiter', () => {
  it('is an overall limiter: no per-item count, forget does nothing', () => {
    const c = manualClock();
    const rl = bucketRateLimiter<string>(10, 2, c);
    expect(rl.when('a')).toBe(0);
    expect(rl.when('b')).toBe(0);
    expect(rl.when('c')).toBeCloseTo(100);
    rl.forget('c');
    expect(rl.when('a')).toBeCloseTo(200);
    expect(rl.numRequeues('a')).toBe(0);
  });
});

describe('maxOfRateLimiter and withMaxWaitRateLimiter', () => {
  it('returns the largest delay, counts in every limiter, forgets in all', () => {
    const a = itemExponentialFailureRateLimiter<string>(1, 1000);
    const b = itemFastSlowRateLimiter<string>(3, 50, 2);
    const rl = maxOfRateLimiter(a, b);
    expect([1, 2, 3, 4, 5, 6, 7].map(() => rl.when('x'))).toEqual([3, 3, 50, 50, 50, 50, 64]);
    expect(rl.numRequeues('x')).toBe(7);
    rl.forget('x');
    expect(a.numRequeues('x')).toBe(0);
    expect(b.numRequeues('x')).toBe(0);
    expect(() => maxOfRateLimiter()).toThrow(RangeError);
  });

  it('caps another limiter', () => {
    const rl = withMaxWaitRateLimiter(itemExponentialFailureRateLimiter<string>(100, 100_000), 350);
    expect([1, 2, 3, 4].map(() => rl.when('k'))).toEqual([100, 200, 350, 350]);
    expect(rl.numRequeues('k')).toBe(4);
  });
});

describe('upstream queue limiters', () => {
  it('defaultControllerRateLimiter: per-item 5 ms × 2^n up to 1000 s, overall 10 qps with burst 100', () => {
    const c = manualClock();
    const rl = defaultControllerRateLimiter<string>(c);
    // One item failing repeatedly: the exponential part dominates.
    const first = Array.from({ length: 5 }, () => rl.when('node-a'));
    expect(first).toEqual([5, 10, 20, 40, 80]);
    for (let i = 0; i < 30; i++) rl.when('node-a');
    expect(rl.when('node-a')).toBe(1_000_000);
    // 36 tokens used; 64 distinct items still get 5 ms, the 101st reservation waits 100 ms.
    for (let i = 0; i < 64; i++) expect(rl.when(`n${i}`)).toBe(5);
    expect(rl.when('late')).toBeCloseTo(100);
    expect(rl.when('later')).toBeCloseTo(200);
    rl.forget('node-a');
    expect(rl.numRequeues('node-a')).toBe(0);
  });

  it('routeQueueRateLimiter: one token per 10 s, burst 1, each wait capped at 10 s', () => {
    const c = manualClock();
    const rl = routeQueueRateLimiter<string>(c);
    expect(rl.when('routes')).toBe(0);
    expect(rl.when('routes')).toBeCloseTo(10_000);
    expect(rl.when('routes')).toBe(10_000);
    c.advance(30_000);
    expect(rl.when('routes')).toBeCloseTo(0);
  });
});

import { createLogger } from '@ccm-kit/runtime';
import {
  jitterUntil,
  nonSlidingUntil,
  pollUntil,
  sleep,
  until,
  WaitTimeoutError,
  whenAborted,
} from '@ccm-kit/runtime/wait';
import {
  BackoffStepper,
  defaultBackoff,
  defaultRetry,
  jitter,
  LruCache,
  onError,
  sprintf,
} from '@ccm-kit/runtime/internal';
import { captureLogs } from '@ccm-kit/testing';
import { ApiException } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const conflict = () =>
  new ApiException(409, 'conflict', JSON.stringify({ kind: 'Status', reason: 'Conflict', code: 409 }), {});

describe('sleep and jitter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sleep resolves true after the delay and false on abort, clearing its timer', async () => {
    const p = sleep(1000);
    await vi.advanceTimersByTimeAsync(999);
    let done = false;
    void p.then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await p).toBe(true);

    const ac = new AbortController();
    const q = sleep(60_000, ac.signal);
    expect(vi.getTimerCount()).toBe(1);
    ac.abort();
    expect(await q).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    expect(await sleep(10, AbortSignal.abort())).toBe(false);
  });

  it('sleep splits delays longer than the timer limit', async () => {
    const p = sleep(3_000_000_000);
    await vi.advanceTimersByTimeAsync(2_147_483_647);
    let done = false;
    void p.then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(3_000_000_000 - 2_147_483_647);
    expect(await p).toBe(true);
  });

  it('jitter adds up to maxFactor × duration; a factor ≤ 0 means 1', () => {
    expect(jitter(100, 0.5, () => 0)).toBe(100);
    expect(jitter(100, 0.5, () => 0.5)).toBe(125);
    expect(jitter(100, 0, () => 0.5)).toBe(150);
  });
});

describe('until / nonSlidingUntil / jitterUntil', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  async function runLoop(kind: 'sliding' | 'nonsliding', workMs: number, periodMs: number, totalMs: number) {
    const starts: number[] = [];
    const t0 = Date.now();
    const ac = new AbortController();
    const fn = async () => {
      starts.push(Date.now() - t0);
      await sleep(workMs);
    };
    const loop = kind === 'sliding' ? until(ac.signal, fn, periodMs) : nonSlidingUntil(ac.signal, fn, periodMs);
    await vi.advanceTimersByTimeAsync(totalMs);
    ac.abort();
    await vi.advanceTimersByTimeAsync(workMs);
    await loop;
    return starts;
  }

  it('sliding: runs at once, then waits the period after each run ends', async () => {
    expect(await runLoop('sliding', 100, 1000, 3500)).toEqual([0, 1100, 2200, 3300]);
  });

  it('non-sliding: periods are measured from each run start', async () => {
    expect(await runLoop('nonsliding', 100, 1000, 3500)).toEqual([0, 1000, 2000, 3000]);
  });

  it('non-sliding: a run longer than the period is followed at once', async () => {
    // Back-to-back runs only yield to the event loop (a fake setImmediate may count 1 ms).
    const starts = await runLoop('nonsliding', 1500, 1000, 3500);
    expect(starts).toHaveLength(3);
    [0, 1500, 3000].forEach((t, i) => {
      expect(starts[i]).toBeGreaterThanOrEqual(t);
      expect(starts[i]).toBeLessThanOrEqual(t + 2);
    });
  });

  it('logs a failing run and keeps looping; resolves once aborted', async () => {
    const { lines, restore } = captureLogs();
    try {
      const ac = new AbortController();
      let runs = 0;
      const loop = until(
        ac.signal,
        () => {
          runs++;
          throw new Error('boom');
        },
        100,
        createLogger('loop-test'),
      );
      await vi.advanceTimersByTimeAsync(250);
      expect(runs).toBe(3);
      ac.abort();
      await loop;
      expect(lines.some((l) => l.includes('loop-test') && l.includes('boom'))).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      restore();
    }
  });

  it('jitterUntil stretches each period by the jitter', async () => {
    const ac = new AbortController();
    const starts: number[] = [];
    const t0 = Date.now();
    const loop = jitterUntil(ac.signal, () => void starts.push(Date.now() - t0), 1000, {
      jitterFactor: 0.5,
      random: () => 0.5,
    });
    await vi.advanceTimersByTimeAsync(2600);
    ac.abort();
    await loop;
    expect(starts).toEqual([0, 1250, 2500]);
  });

  it('rejects a negative period', async () => {
    await expect(until(new AbortController().signal, () => {}, -1)).rejects.toThrow(/periodMs/);
  });
});

describe('whenAborted', () => {
  it('resolves once the signal aborts, and at once for a signal that already has', async () => {
    const ctl = new AbortController();
    let done = false;
    const p = whenAborted(ctl.signal).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    ctl.abort();
    await p;
    expect(done).toBe(true);
    await expect(whenAborted(AbortSignal.abort())).resolves.toBeUndefined();
  });
});

describe('pollUntil', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('resolves once the condition holds', async () => {
    let n = 0;
    const p = pollUntil(() => ++n >= 3, { intervalMs: 100 });
    await vi.advanceTimersByTimeAsync(200);
    await p;
    expect(n).toBe(3);
  });

  it('times out with WaitTimeoutError, and rethrows a condition error', async () => {
    const p = pollUntil(() => false, { intervalMs: 100, timeoutMs: 350 });
    const check = expect(p).rejects.toBeInstanceOf(WaitTimeoutError);
    await vi.advanceTimersByTimeAsync(400);
    await check;
    await expect(
      pollUntil(
        () => {
          throw new Error('bad');
        },
        { intervalMs: 10 },
      ),
    ).rejects.toThrow('bad');
    await expect(pollUntil(() => true, { intervalMs: 0 })).rejects.toThrow(/intervalMs/);
  });
});

describe('backoff and onError', () => {
  it('BackoffStepper grows by the factor, stops at the cap, and jitters', () => {
    const s = new BackoffStepper({ steps: 5, durationMs: 10, factor: 3, capMs: 100 }, () => 0);
    expect([s.step(), s.step(), s.step(), s.step()]).toEqual([10, 30, 90, 100]);
    expect(s.steps).toBe(0);
    const j = new BackoffStepper({ steps: 2, durationMs: 100, jitter: 1 }, () => 0.5);
    expect(j.step()).toBe(150);
    expect(defaultRetry).toEqual({ steps: 5, durationMs: 10, factor: 1, jitter: 0.1 });
    expect(defaultBackoff).toEqual({ steps: 4, durationMs: 10, factor: 5, jitter: 0.1 });
    expect(() => new BackoffStepper({ steps: 0, durationMs: 1 })).toThrow(/steps/);
  });

  it('onError stops when the signal aborts during a sleep', async () => {
    const ac = new AbortController();
    const err = conflict();
    const p = onError(
      { steps: 10, durationMs: 60_000 },
      () => true,
      () => {
        throw err;
      },
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 5);
    await expect(p).rejects.toBe(err);
  });
});

describe('LruCache', () => {
  it('evicts the least recently used entry', () => {
    const c = new LruCache<string, number>(2);
    c.add('a', 1);
    c.add('b', 2);
    expect(c.get('a')).toBe(1);
    c.add('c', 3);
    expect(c.has('b')).toBe(false);
    expect(c.get('a')).toBe(1);
    expect(c.get('c')).toBe(3);
    expect(c.size).toBe(2);
    expect(() => new LruCache(0)).toThrow(/maxEntries/);
  });
});

describe('sprintf', () => {
  it('formats Go verbs', () => {
    expect(sprintf('Deleting node %v because it does not exist', 'n1')).toBe(
      'Deleting node n1 because it does not exist',
    );
    expect(sprintf('%s has %d nodes (%q) %t', 'lb', 3, 'x"y', true)).toBe('lb has 3 nodes ("x\\"y") true');
    expect(sprintf('%v %v %v', ['a', 'b'], new Error('boom'), undefined)).toBe('[a b] boom <nil>');
    expect(sprintf('%.2f%% %5d|%-4s|%05d', 12.345, 42, 'ab', -42)).toBe('12.35%    42|ab  |-0042');
    expect(sprintf('%x', 255)).toBe('ff');
    expect(sprintf('%d and %s', 1)).toBe('1 and %!s(MISSING)');
    expect(sprintf('only', 1, 'x')).toBe('only%!(EXTRA 1, x)');
    expect(sprintf('%v', { a: 1 })).toBe('{"a":1}');
  });
});

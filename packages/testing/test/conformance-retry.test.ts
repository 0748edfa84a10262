import { RetryError } from '@ccm-kit/cloud-provider';
import { describe, expect, it } from 'vitest';
import { CallTimeoutError, RetryDeadlineError, retryWhileRetryError, within } from '../src/conformance/retry.js';

describe('retryWhileRetryError (the service controller loop, bounded)', () => {
  it('retries while RetryError is thrown, capping each wait', async () => {
    let attempts = 0;
    const start = performance.now();
    const result = await retryWhileRetryError(
      async () => {
        if (++attempts < 4) throw new RetryError('provisioning', 60_000);
        return 'ready';
      },
      { deadlineMs: 5_000, capMs: 20 },
    );
    expect(result).toEqual({ value: 'ready', retries: 3 });
    expect(performance.now() - start).toBeLessThan(1_000);
  });

  it('finds a RetryError in the cause chain, as the controller does', async () => {
    let attempts = 0;
    const result = await retryWhileRetryError(
      async () => {
        if (++attempts === 1) throw new Error('ensure failed', { cause: new RetryError('wait', 0) });
        return attempts;
      },
      { deadlineMs: 1_000, capMs: 50 },
    );
    expect(result).toEqual({ value: 2, retries: 1 });
  });

  it('passes any other error through at once', async () => {
    let attempts = 0;
    const boom = new Error('HTTP 500');
    await expect(
      retryWhileRetryError(
        async () => {
          attempts++;
          throw boom;
        },
        { deadlineMs: 1_000, capMs: 10 },
      ),
    ).rejects.toBe(boom);
    expect(attempts).toBe(1);
  });

  it('gives up at the deadline with the last RetryError', async () => {
    const err = await retryWhileRetryError(
      async () => {
        throw new RetryError('still provisioning', 10);
      },
      { deadlineMs: 100, capMs: 10 },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryDeadlineError);
    expect((err as RetryDeadlineError).last.message).toBe('still provisioning');
    expect((err as RetryDeadlineError).attempts).toBeGreaterThanOrEqual(5);
    expect((err as Error).message).toMatch(/^still throwing RetryError after \d+ attempts in 100 ms/);
  });
});

describe('within', () => {
  it('settles like the promise when it is in time', async () => {
    await expect(within('fast()', 1_000, Promise.resolve(7))).resolves.toBe(7);
    await expect(within('failing()', 1_000, Promise.reject(new Error('no')))).rejects.toThrow('no');
  });

  it('rejects with CallTimeoutError naming the call when it is not', async () => {
    const err = await within('hang()', 20, new Promise(() => {})).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallTimeoutError);
    expect((err as Error).message).toBe('hang() did not settle within 20 ms');
  });
});

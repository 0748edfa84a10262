import { errorMessage, uniqueName } from '@ccm-kit/testing';
import { eventually, eventuallyValue } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';

describe('eventually (stops throwing)', () => {
  it('retries until fn stops throwing and resolves with its value', async () => {
    let tries = 0;
    const v = await eventually(
      () => {
        tries++;
        expect(tries).toBeGreaterThanOrEqual(3);
        return `try ${tries}`;
      },
      { intervalMs: 5 },
    );
    expect(v).toBe('try 3');
  });

  it('after timeoutMs throws the last error, prefixed with what and the timeout', async () => {
    let n = 0;
    const err = await eventually(
      async () => {
        throw new Error(`not yet #${++n}`);
      },
      { timeoutMs: 100, intervalMs: 10, what: 'the widget' },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^eventually: the widget did not hold within 100 ms: not yet #\d+$/);
    expect(n).toBeGreaterThan(1);
  });

  it('keeps an assertion error (and its diff) as the error thrown', async () => {
    const err = await eventually(() => expect(1).toBe(2), 50).catch((e: unknown) => e);
    expect((err as Error).name).toBe('AssertionError');
    expect((err as Error).message).toContain('expected 1 to be 2');
  });

  it('rejects a non-positive timeout or interval, naming the option', async () => {
    await expect(eventually(() => 1, { timeoutMs: 0 })).rejects.toThrow('timeoutMs must be > 0 ms, got 0');
    await expect(eventually(() => 1, { intervalMs: -1 })).rejects.toThrow('intervalMs must be > 0 ms, got -1');
  });
});

describe('eventuallyValue (returns a value)', () => {
  it('waits while fn returns undefined, null or false, or throws; 0 and "" are values', async () => {
    const answers: unknown[] = [undefined, null, false, new Error('flaky'), 0];
    const v = await eventuallyValue(
      () => {
        const a = answers.shift();
        if (a instanceof Error) throw a;
        return a as number | undefined | null | false;
      },
      { intervalMs: 5 },
    );
    expect(v).toBe(0);
    expect(await eventuallyValue(() => '', { intervalMs: 5 })).toBe('');
  });

  it('on time-out names what it waited for and the last answer', async () => {
    await expect(eventuallyValue(async () => undefined, { timeoutMs: 60, what: 'the ingress' })).rejects.toThrow(
      'eventually: the ingress did not hold within 60 ms: returned undefined',
    );
  });
});

describe('errorMessage and uniqueName', () => {
  it('errorMessage reads Errors and anything else', () => {
    expect(errorMessage(new TypeError('bad'))).toBe('bad');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
  });

  it('uniqueName gives distinct DNS-1123 labels and refuses a too long prefix', () => {
    const a = uniqueName('My_Node');
    const b = uniqueName('My_Node');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^my-node-[a-z0-9]+-\d+$/);
    expect(() => uniqueName('x'.repeat(60))).toThrow(RangeError);
  });
});

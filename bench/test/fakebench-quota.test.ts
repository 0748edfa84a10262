import { classifyCloudError } from '@ccm-kit/runtime/guard';
import { describe, expect, it } from 'vitest';
import { FakeBench } from '../fakebench.ts';
import { CloudThrottledError, parseRps, RETRY_AFTER_MS, TokenBucket } from '../fakebench-quota.ts';

const node = { metadata: { name: 'bench-node-00001' } };

describe('TokenBucket', () => {
  it('allows the burst at once, then the rate, and never more than the burst', () => {
    const b = new TokenBucket(10, 10, 1_000);
    for (let i = 0; i < 10; i++) expect(b.take(1_000)).toBe(true);
    expect(b.take(1_000)).toBe(false);
    expect(b.take(1_099)).toBe(false); // a refused call takes no token, and 99 ms at 10/s is < 1 token
    expect(b.take(1_100)).toBe(true);
    let n = 0;
    while (b.take(3_600_000)) n++;
    expect(n).toBe(10);
    expect(b.take(1_000)).toBe(false); // a clock going back adds nothing
  });

  it('answers a call exactly one token of time after the bucket emptied, whatever the rounding of the refills', () => {
    // Seen in a W9 run: ccm-kit's budget granted the thirteenth call at 782 ms, exactly 300 ms after the first,
    // and the refills' floating-point sum left 0.9999999999999993 tokens.
    const b = new TokenBucket(10, 10, 470);
    for (const ms of [482, 572, 589, 590, 594, 597, 598, 600, 601, 604, 606, 683]) expect(b.take(ms)).toBe(true);
    expect(b.take(781)).toBe(false);
    expect(b.take(782)).toBe(true);
    expect(b.take(782)).toBe(false);
  });

  it('rejects a rate or burst that is not positive', () => {
    expect(() => new TokenBucket(0, 10, 0)).toThrow(/rate/);
    expect(() => new TokenBucket(10, Number.NaN, 0)).toThrow(/burst/);
  });
});

describe('parseRps', () => {
  it('reads unset, empty and 0 as no quota, and a positive integer as calls a second', () => {
    expect(parseRps(undefined)).toBeUndefined();
    expect(parseRps('')).toBeUndefined();
    expect(parseRps('0')).toBeUndefined();
    expect(parseRps('10')).toBe(10);
  });

  it('names the variable on anything else', () => {
    for (const v of ['-1', '1.5', 'ten']) expect(() => parseRps(v)).toThrow(/FAKEBENCH_RPS/);
  });
});

describe('FakeBench quota', () => {
  it('answers beyond the quota with a 429 the runtime classifies as throttled, counting every call', async () => {
    const fake = FakeBench.fromEnv({ FAKEBENCH_RPS: '3', FAKEBENCH_RPS_FROM: 'signal' });
    for (let i = 0; i < 5; i++) await fake.instanceMetadata(node);
    fake.startQuota();
    for (let i = 0; i < 3; i++) await fake.instanceExists(node);
    const err = await fake.instanceExists(node).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CloudThrottledError);
    expect(err).toMatchObject({ status: 429, retryAfterMs: RETRY_AFTER_MS });
    expect(classifyCloudError(err)).toBe('throttled');
    const s = fake.snapshot();
    expect(s.throttled).toBe(1);
    expect(s.calls.InstanceExists).toBe(4);
    expect(s.calls.InstanceMetadata).toBe(5);
  });

  it('has no quota without FAKEBENCH_RPS and rejects an unknown FAKEBENCH_RPS_FROM', async () => {
    const fake = FakeBench.fromEnv({});
    for (let i = 0; i < 100; i++) await fake.instanceExists(node);
    expect(fake.snapshot().throttled).toBe(0);
    expect(() => FakeBench.fromEnv({ FAKEBENCH_RPS: '3', FAKEBENCH_RPS_FROM: 'later' })).toThrow(/FAKEBENCH_RPS_FROM/);
  });
});

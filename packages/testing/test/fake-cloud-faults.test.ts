import { findError, RetryError } from '@ccm-kit/cloud-provider';
import { FakeCloud, InjectedError, loadBalancerService, ThrottledError } from '@ccm-kit/testing';
import type { V1Service } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { node } from './fake-cloud-fixture.js';

const CLUSTER = 'kubernetes';
const svc = (name: string): V1Service => loadBalancerService(name, { uid: `uid-${name}` });

/** A manual clock (ms) for throttles. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

/** Deterministic "random" numbers taken from a list, cycling. */
function sequence(values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('FakeCloud latency', () => {
  it('delays a method by a fixed number of milliseconds', async () => {
    vi.useFakeTimers();
    const cloud = new FakeCloud();
    cloud.faults.setLatency('nodeAddresses', 250);
    let done = false;
    const p = cloud.nodeAddresses('n').then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(249);
    expect(done).toBe(false);
    expect(cloud.calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
    expect(cloud.calls).toEqual(['node-addresses']);
    // other methods are not delayed
    await cloud.instanceID('n');
  });

  it('draws a random latency in [minMs, maxMs] from the random source', async () => {
    vi.useFakeTimers();
    const cloud = new FakeCloud({ random: sequence([0.5]) });
    cloud.faults.setLatency('*', { minMs: 100, maxMs: 300 });
    let done = false;
    const p = cloud.getZone().then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(199);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
  });

  it('a method-specific latency wins over the wildcard, and undefined removes it', async () => {
    vi.useFakeTimers();
    const cloud = new FakeCloud();
    cloud.faults.setLatency('*', 1_000).setLatency(['getZone'], 10);
    let done = false;
    const p = cloud.getZone().then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(10);
    await p;
    expect(done).toBe(true);
    cloud.faults.setLatency('*', undefined);
    await cloud.listClusters(); // would hang under fake timers if the wildcard latency were still set
  });

  it('requestDelayMs delays each recorded call name (twice for ensureLoadBalancer, as upstream)', async () => {
    vi.useFakeTimers();
    const cloud = new FakeCloud({ requestDelayMs: 100 });
    const p = cloud.ensureLoadBalancer(CLUSTER, svc('a'), []);
    await vi.advanceTimersByTimeAsync(99);
    expect(cloud.calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(cloud.calls).toEqual(['create']);
    await vi.advanceTimersByTimeAsync(100);
    await p;
    expect(cloud.calls).toEqual(['create', 'get-zone']);
    // unrecorded calls are not delayed
    cloud.exists = true;
    await cloud.getLoadBalancer(CLUSTER, svc('a'));
  });

  it('rejects bad latency input with the field name', () => {
    const cloud = new FakeCloud();
    expect(() => cloud.faults.setLatency('getZone', -1)).toThrow(/latency/);
    expect(() => cloud.faults.setLatency('getZone', { minMs: 5, maxMs: 1 })).toThrow(/latency\.maxMs/);
    expect(() => cloud.faults.setLatency('nope' as never, 1)).toThrow(/unknown FakeCloud method "nope"/);
    expect(() => cloud.faults.setLatency([], 1)).toThrow(/methods/);
  });
});

describe('FakeCloud error injection', () => {
  it('always: every call fails with an InjectedError, counted and logged but not in calls', async () => {
    const cloud = new FakeCloud();
    cloud.faults.injectError('instanceExistsByProviderID', {});
    const err = await cloud.instanceExistsByProviderID('fake://1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InjectedError);
    expect((err as InjectedError).method).toBe('instanceExistsByProviderID');
    expect(cloud.calls).toEqual([]);
    expect(cloud.callCount('instanceExistsByProviderID')).toBe(1);
    const [entry] = cloud.callLog.entries('instanceExistsByProviderID');
    expect(entry).toMatchObject({ outcome: 'error', error: err, subject: 'fake://1', calls: [] });
    await expect(cloud.instanceShutdownByProviderID('fake://1')).resolves.toBe(false);
  });

  it('everyNth fails the Nth, 2Nth, … call', async () => {
    const cloud = new FakeCloud();
    cloud.faults.injectError('getZone', { everyNth: 3 });
    const results = [];
    for (let i = 0; i < 7; i++)
      results.push(
        await cloud.getZone().then(
          () => 'ok',
          () => 'fail',
        ),
      );
    expect(results).toEqual(['ok', 'ok', 'fail', 'ok', 'ok', 'fail', 'ok']);
  });

  it('probability fails calls whose draw is below it', async () => {
    const cloud = new FakeCloud({ random: sequence([0.1, 0.9, 0.29, 0.3]) });
    cloud.faults.injectError('getZone', { probability: 0.3 });
    const results = [];
    for (let i = 0; i < 4; i++)
      results.push(
        await cloud.getZone().then(
          () => 'ok',
          () => 'fail',
        ),
      );
    expect(results).toEqual(['fail', 'ok', 'fail', 'ok']);
  });

  it('uses a given error object or a factory, and stops after times', async () => {
    const cloud = new FakeCloud();
    const fixed = new RetryError('LB create in progress', 42_000);
    cloud.faults.injectError('ensureLoadBalancer', { error: fixed, times: 1 });
    await expect(cloud.ensureLoadBalancer(CLUSTER, svc('a'), [])).rejects.toBe(fixed);
    await expect(cloud.ensureLoadBalancer(CLUSTER, svc('a'), [])).resolves.toBeDefined();
    const seen: number[] = [];
    cloud.faults.injectError('*', {
      everyNth: 2,
      error: ({ method, callNumber }) => {
        seen.push(callNumber);
        return new Error(`${method} #${callNumber}`);
      },
    });
    await cloud.getZone();
    await expect(cloud.nodeAddresses('n')).rejects.toThrow('nodeAddresses #2');
    await cloud.listClusters();
    await expect(cloud.getZone()).rejects.toThrow('getZone #4');
    expect(seen).toEqual([2, 4]);
  });

  it('callLog.maxConcurrency counts the calls of a method in flight at once', async () => {
    const cloud = new FakeCloud({ requestDelayMs: 20 });
    await Promise.all([cloud.nodeAddresses('a'), cloud.nodeAddresses('b'), cloud.nodeAddresses('c')]);
    await cloud.nodeAddresses('d');
    await cloud.getZone();
    expect(cloud.callLog.maxConcurrency('nodeAddresses')).toBe(3);
    expect(cloud.callLog.maxConcurrency('getZone')).toBe(1);
    expect(cloud.callLog.maxConcurrency('instanceID')).toBe(0);
    cloud.callLog.clear();
    await cloud.nodeAddresses('e');
    expect(cloud.callLog.maxConcurrency('nodeAddresses')).toBe(1);
  });

  it('a subject limits the policy to the calls about it, which alone are counted', async () => {
    const cloud = new FakeCloud();
    const subjects: string[] = [];
    cloud.faults.injectError(['ensureLoadBalancer', 'createRoute'], {
      subject: 'default/b',
      times: 2,
      error: ({ subject, callNumber }) => {
        subjects.push(`${subject} #${callNumber}`);
        return new Error(`down for ${subject}`);
      },
    });
    await expect(cloud.ensureLoadBalancer(CLUSTER, svc('a'), [])).resolves.toBeDefined();
    await expect(cloud.ensureLoadBalancer(CLUSTER, svc('b'), [])).rejects.toThrow('down for default/b');
    await expect(cloud.ensureLoadBalancer(CLUSTER, svc('b'), [])).rejects.toThrow('down for default/b');
    await expect(cloud.ensureLoadBalancer(CLUSTER, svc('b'), [])).resolves.toBeDefined();
    expect(subjects).toEqual(['default/b #1', 'default/b #2']);
    // Routes are about `<cluster>/<targetNode>`.
    cloud.faults.injectError('createRoute', { subject: `${CLUSTER}/node-b` });
    const route = (targetNode: string, destinationCIDR: string) => ({ targetNode, destinationCIDR });
    await expect(cloud.createRoute(CLUSTER, 'uid-a', route('node-a', '10.0.1.0/24'))).resolves.toBeUndefined();
    await expect(cloud.createRoute(CLUSTER, 'uid-b', route('node-b', '10.0.2.0/24'))).rejects.toBeInstanceOf(
      InjectedError,
    );
    expect(() => cloud.faults.injectError('getZone', { subject: 1 as unknown as string })).toThrow(
      'subject: expected a string, got number',
    );
  });

  it('injectError(…, undefined) removes the policy; faults.clear() removes everything', async () => {
    const cloud = new FakeCloud();
    cloud.faults.injectError(['getZone', 'master'], {});
    await expect(cloud.getZone()).rejects.toBeInstanceOf(InjectedError);
    cloud.faults.injectError('getZone', undefined);
    await expect(cloud.getZone()).resolves.toBeDefined();
    await expect(cloud.master('c')).rejects.toBeInstanceOf(InjectedError);
    cloud.faults.clear();
    await expect(cloud.master('c')).resolves.toBe('');
  });

  it('rejects bad policies with the field name', () => {
    const cloud = new FakeCloud();
    expect(() => cloud.faults.injectError('getZone', { everyNth: 0 })).toThrow(/everyNth/);
    expect(() => cloud.faults.injectError('getZone', { probability: 1.5 })).toThrow(/probability/);
    expect(() => cloud.faults.injectError('getZone', { times: 0.5 })).toThrow(/times/);
    expect(() => cloud.faults.injectError('getZone', { everyNth: 2, probability: 0.5 })).toThrow(/at most one/);
    expect(() => cloud.faults.injectError('getZone', { error: 'x' as never })).toThrow(/error/);
  });
});

describe('FakeCloud throttling', () => {
  it('admits a burst, then throws ThrottledError (a RetryError) with the wait in ms until refilled', async () => {
    const clock = manualClock();
    const cloud = new FakeCloud({ now: clock.now });
    cloud.faults.throttle({ qps: 2, burst: 3, methods: 'ensureLoadBalancer' });
    for (let i = 0; i < 3; i++) await cloud.ensureLoadBalancer(CLUSTER, svc('a'), []);
    const err = await cloud.ensureLoadBalancer(CLUSTER, svc('a'), []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ThrottledError);
    expect(findError(err, RetryError)?.retryAfterMs).toBe(500);
    expect((err as ThrottledError).method).toBe('ensureLoadBalancer');
    clock.advance(200);
    const again = await cloud.ensureLoadBalancer(CLUSTER, svc('a'), []).catch((e: unknown) => e);
    expect((again as ThrottledError).retryAfterMs).toBe(300);
    clock.advance(300);
    await cloud.ensureLoadBalancer(CLUSTER, svc('a'), []);
    expect(cloud.callCount('ensureLoadBalancer')).toBe(6);
    expect(cloud.ensureCalls).toHaveLength(4);
    expect(cloud.calls.filter((c) => c === 'create')).toHaveLength(4);
    // other methods are not throttled by this bucket
    for (let i = 0; i < 10; i++) await cloud.getZone();
  });

  it('admits a call exactly one token of time after the bucket emptied, whatever the rounding of the refills', async () => {
    let t = 470;
    const cloud = new FakeCloud({ now: () => t });
    cloud.faults.throttle({ qps: 10, burst: 10 });
    for (const ms of [482, 572, 589, 590, 594, 597, 598, 600, 601, 604, 606, 683]) {
      t = ms;
      await cloud.getZone();
    }
    // The refills' floating-point sum leaves 0.9999999999999993 tokens at 782 ms.
    t = 781;
    await expect(cloud.getZone()).rejects.toBeInstanceOf(ThrottledError);
    t = 782;
    await cloud.getZone();
    await expect(cloud.getZone()).rejects.toMatchObject({ retryAfterMs: 100 });
  });

  it('a wildcard bucket is shared by all methods and refills up to burst only', async () => {
    const clock = manualClock();
    const cloud = new FakeCloud({ now: clock.now });
    const remove = cloud.faults.throttle({ qps: 10, burst: 2 });
    await cloud.getZone();
    await cloud.nodeAddresses('n');
    await expect(cloud.master('c')).rejects.toBeInstanceOf(ThrottledError);
    clock.advance(10_000);
    await cloud.getZone();
    await cloud.getZone();
    await expect(cloud.getZone()).rejects.toMatchObject({ retryAfterMs: 100 });
    remove();
    await cloud.getZone();
  });

  it('a refused call takes no token from other buckets', async () => {
    const clock = manualClock();
    const cloud = new FakeCloud({ now: clock.now });
    cloud.faults.throttle({ qps: 1, burst: 1, methods: 'getZone' });
    cloud.faults.throttle({ qps: 1, burst: 1, methods: ['getZone', 'master'] });
    cloud.faults.throttle({ qps: 1, burst: 1, methods: ['master'] });
    await cloud.master('c');
    await expect(cloud.getZone()).rejects.toBeInstanceOf(ThrottledError);
    clock.advance(1_000);
    await cloud.getZone();
  });

  it('rejects bad throttle input with the field name', () => {
    const cloud = new FakeCloud();
    expect(() => cloud.faults.throttle({ qps: 0, burst: 1 })).toThrow(/qps/);
    expect(() => cloud.faults.throttle({ qps: 1, burst: 0 })).toThrow(/burst/);
    expect(() => cloud.faults.throttle({ qps: 1, burst: 1, methods: 'x' as never })).toThrow(/unknown/);
  });
});

describe('FakeCloud cancellation', () => {
  it('rejects at once with the reason of an already aborted signal, recording nothing', async () => {
    const cloud = new FakeCloud({ existsByProviderID: true });
    const reason = new Error('stop');
    const signal = AbortSignal.abort(reason);
    await expect(cloud.instanceExistsByProviderID('fake://1', signal)).rejects.toBe(reason);
    await expect(cloud.ensureLoadBalancer(CLUSTER, svc('a'), [], signal)).rejects.toBe(reason);
    await expect(cloud.getLabelsForVolume({ metadata: { name: 'pv' } }, signal)).rejects.toBe(reason);
    expect(cloud.calls).toEqual([]);
    expect(cloud.ensureCalls).toEqual([]);
    expect(cloud.callCount('ensureLoadBalancer')).toBe(1);
  });

  it('aborts during a latency sleep', async () => {
    const cloud = new FakeCloud();
    cloud.faults.setLatency('updateLoadBalancer', 60_000);
    const controller = new AbortController();
    const p = cloud.updateLoadBalancer(CLUSTER, svc('a'), [node('n')], controller.signal);
    setTimeout(() => controller.abort(), 5);
    const started = performance.now();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(cloud.updateCalls).toEqual([]);
    expect(cloud.callLog.entries('updateLoadBalancer')[0]?.outcome).toBe('error');
  });

  it('aborts during requestDelayMs between create and get-zone, storing no balancer', async () => {
    vi.useFakeTimers();
    const cloud = new FakeCloud({ requestDelayMs: 50 });
    const controller = new AbortController();
    const p = cloud.ensureLoadBalancer(CLUSTER, svc('a'), [], controller.signal);
    const settled = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(60);
    expect(cloud.calls).toEqual(['create']);
    controller.abort('cancelled');
    expect(await settled).toBe('cancelled');
    await vi.advanceTimersByTimeAsync(100);
    expect(cloud.calls).toEqual(['create']);
    expect(cloud.balancers.size).toBe(0);
  });

  it('aborts while queued behind a blocking ensureCallCb, without running the callback for it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const cbFor: string[] = [];
    const cloud = new FakeCloud({
      ensureCallCb: async (call) => {
        cbFor.push(call.service.metadata!.name!);
        await gate;
      },
    });
    const first = cloud.ensureLoadBalancer(CLUSTER, svc('first'), []);
    const controller = new AbortController();
    const second = cloud.ensureLoadBalancer(CLUSTER, svc('second'), [], controller.signal);
    await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await expect(second).rejects.toMatchObject({ name: 'AbortError' });
    release();
    await first;
    expect(cbFor).toEqual(['first']);
    expect(cloud.ensureCalls.map((c) => c.service.metadata?.name)).toEqual(['first']);
  });
});

describe('FakeCloud call log and bounded memory', () => {
  it('keeps at most callLogLimit entries in the log and in calls, dropping the oldest', async () => {
    const cloud = new FakeCloud({ callLogLimit: 5 });
    for (let i = 0; i < 8; i++) await cloud.nodeAddresses(`node-${i}`);
    await cloud.ensureLoadBalancer(CLUSTER, svc('a'), []);
    expect(cloud.calls).toEqual(['node-addresses', 'node-addresses', 'node-addresses', 'create', 'get-zone']);
    const entries = cloud.callLog.entries();
    expect(entries.map((e) => e.subject)).toEqual(['node-4', 'node-5', 'node-6', 'node-7', 'default/a']);
    expect(entries.map((e) => e.seq)).toEqual([5, 6, 7, 8, 9]);
    expect(entries[4]).toMatchObject({
      method: 'ensureLoadBalancer',
      outcome: 'ok',
      calls: ['create', 'get-zone'],
    });
    expect(cloud.callLog.dropped).toBe(4);
    expect(cloud.callCount('nodeAddresses')).toBe(8);
    expect(cloud.callCounts()).toEqual({ nodeAddresses: 8, ensureLoadBalancer: 1 });
  });

  it('defaults to 10,000 entries and stays there under a long run', async () => {
    const cloud = new FakeCloud();
    expect(cloud.callLog.limit).toBe(10_000);
    for (let i = 0; i < 12_000; i++) await cloud.updateLoadBalancer(CLUSTER, svc('a'), []);
    expect(cloud.calls).toHaveLength(10_000);
    expect(cloud.updateCalls).toHaveLength(10_000);
    expect(cloud.callLog.entries()).toHaveLength(10_000);
    expect(cloud.callLog.dropped).toBe(2_000);
    expect(cloud.callCount('updateLoadBalancer')).toBe(12_000);
  });

  it('records start and end times on the fake clock; callLog.clear() resets entries and counters', async () => {
    const clock = manualClock();
    const cloud = new FakeCloud({ now: clock.now });
    cloud.overrideInstanceMetadata = async () => {
      clock.advance(7);
      return undefined;
    };
    await cloud.instanceMetadata(node('n'));
    expect(cloud.callLog.entries()[0]).toMatchObject({ startMs: 1_000, endMs: 1_007, outcome: 'ok' });
    cloud.callLog.clear();
    expect(cloud.callLog.entries()).toEqual([]);
    expect(cloud.callCounts()).toEqual({});
  });
});

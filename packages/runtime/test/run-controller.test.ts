/**
 * runController: the start and stop of every controller (cache sync, running_managed_controllers, start and stop
 * lines, workers over several queues, periodic passes in their cloud lane, queue shutdown on abort, handler removal).
 */
import { metricsRegistry } from '@ccm-kit/runtime';
import { currentCloudLane } from '@ccm-kit/runtime/budget';
import { runController } from '@ccm-kit/runtime/controller';
import { Workqueue } from '@ccm-kit/runtime/workqueue';
import { eventually, useLogCapture } from '@ccm-kit/testing/vitest';
import { afterEach, describe, expect, it, vi } from 'vitest';

const lines = useLogCapture();
afterEach(() => {
  vi.useRealTimers();
});

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

async function running(name: string): Promise<string | undefined> {
  const text = await metricsRegistry.metrics();
  return text
    .split('\n')
    .find((l) => l.startsWith(`running_managed_controllers{name="${name}",manager="cloud-controller-manager"}`))
    ?.split(' ')
    .at(-1);
}

describe('runController', () => {
  it('waits for sync, runs the workers of every queue, then shuts the queues, removes handlers and logs', async () => {
    const informer = { synced: false, hasSynced: () => informer.synced };
    const a = new Workqueue<string>();
    const b = new Workqueue<string>();
    const seen: string[] = [];
    const removed: string[] = [];
    const ac = new AbortController();
    const done = runController(ac.signal, {
      name: 'test-controller',
      metricsName: 'rc-test',
      informers: [informer],
      logLines: {
        starting: 'Starting test controller',
        startingFields: { mode: 'x' },
        waitingForSync: 'Waiting for informer caches to sync',
        shuttingDown: 'Shutting down test controller',
      },
      queues: [
        { name: 'a', queue: a, workers: 1, reconcile: (k) => void seen.push(`a:${k}`) },
        { name: 'b', queue: b, workers: 2, reconcile: (k) => void seen.push(`b:${k}`) },
      ],
      removeHandlers: [() => removed.push('h1'), () => removed.push('h2')],
    });
    a.add('1');
    b.add('2');
    await tick(20);
    expect(seen).toEqual([]); // not synced yet
    expect(await running('rc-test')).toBe('1');
    informer.synced = true;
    // waitForCacheSync polls every 100 ms.
    await eventually(() => expect([...seen].sort()).toEqual(['a:1', 'b:2']), { timeoutMs: 5_000, intervalMs: 10 });
    expect(removed).toEqual([]);
    ac.abort();
    await done;
    expect(a.shuttingDown() && b.shuttingDown()).toBe(true);
    expect(removed).toEqual(['h1', 'h2']);
    expect(await running('rc-test')).toBe('0');
    const mine = lines.filter((l) => l.includes('test controller') || l.includes('Waiting for informer'));
    expect(mine).toHaveLength(3);
    expect(mine[0]).toContain('Starting test controller');
    expect(mine[0]).toContain('mode');
    expect(mine[1]).toContain('Waiting for informer caches to sync');
    expect(mine[2]).toContain('Shutting down test controller');
  });

  it('abort before the caches sync: logs syncFailed, starts nothing, and still cleans up', async () => {
    const q = new Workqueue<string>();
    const ac = new AbortController();
    const reconcile = vi.fn();
    const removed = vi.fn();
    const done = runController(ac.signal, {
      name: 'never-synced',
      informers: [{ hasSynced: () => false }],
      logLines: { syncFailed: 'Cannot start never-synced controller' },
      queues: [{ name: 'q', queue: q, workers: 1, reconcile }],
      passes: [{ run: reconcile, periodMs: 10 }],
      removeHandlers: [removed],
    });
    q.add('k');
    await tick(20);
    ac.abort();
    await done;
    expect(reconcile).not.toHaveBeenCalled();
    expect(q.shuttingDown()).toBe(true);
    expect(removed).toHaveBeenCalledTimes(1);
    const failed = lines.filter((l) => l.includes('Cannot start never-synced controller'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toContain('failed to wait for caches to sync');
  });

  it('workers 0: no worker drains the queue, which is still shut down on abort; a bad count is a RangeError', async () => {
    const q = new Workqueue<string>();
    const ac = new AbortController();
    const reconcile = vi.fn();
    const done = runController(ac.signal, { name: 'zero', queues: [{ name: 'q', queue: q, workers: 0, reconcile }] });
    q.add('k');
    await tick(10);
    expect(reconcile).not.toHaveBeenCalled();
    expect(q.shuttingDown()).toBe(false);
    ac.abort();
    await done;
    expect(q.shuttingDown()).toBe(true);
    await expect(
      runController(ac.signal, { name: 'bad', queues: [{ name: 'q', queue: q, workers: -1, reconcile }] }),
    ).rejects.toThrow(RangeError);
  });

  it('periodic passes: sliding and non-sliding at once, delayFirst after one period, each in its cloud lane', async () => {
    vi.useFakeTimers();
    const ac = new AbortController();
    const calls: { pass: string; at: number; lane: string | undefined }[] = [];
    const t0 = Date.now();
    const pass = (name: string, costMs: number) => async () => {
      calls.push({ pass: name, at: Date.now() - t0, lane: currentCloudLane() });
      await new Promise((r) => setTimeout(r, costMs));
    };
    const done = runController(ac.signal, {
      name: 'passes',
      passes: [
        { run: pass('sliding', 400), periodMs: 1000, lane: 'periodic' },
        { run: pass('non-sliding', 400), periodMs: 1000, sliding: false, lane: 'user' },
        { run: pass('delayed', 0), periodMs: 1000, sliding: false, delayFirst: true },
      ],
    });
    await vi.advanceTimersByTimeAsync(2500);
    ac.abort();
    await vi.advanceTimersByTimeAsync(1000);
    await done;
    const at = (name: string) => calls.filter((c) => c.pass === name).map((c) => c.at);
    expect(at('sliding')).toEqual([0, 1400]);
    expect(at('non-sliding')).toEqual([0, 1000, 2000]);
    expect(at('delayed')).toEqual([1000, 2000]);
    expect(new Set(calls.filter((c) => c.pass === 'sliding').map((c) => c.lane))).toEqual(new Set(['periodic']));
    expect(new Set(calls.filter((c) => c.pass === 'non-sliding').map((c) => c.lane))).toEqual(new Set(['user']));
  });

  it('onStop runs when the signal aborts, before the queues are shut down', async () => {
    const q = new Workqueue<string>();
    const ac = new AbortController();
    const order: string[] = [];
    const done = runController(ac.signal, {
      name: 'stop',
      queues: [{ name: 'q', queue: q, workers: 1, reconcile: () => {} }],
      onStop: () => order.push(`onStop shuttingDown=${q.shuttingDown()}`),
    });
    await tick(5);
    ac.abort();
    order.push(`after abort shuttingDown=${q.shuttingDown()}`);
    await done;
    expect(order.slice(0, 2)).toEqual(['onStop shuttingDown=false', 'after abort shuttingDown=true']);
  });
});

/**
 * The service controller's host-update window (docs/decisions/0206-host-update-window.md): Node changes within
 * the window merge into one node sync, never more `UpdateLoadBalancer` rounds than upstream's node queue makes
 * for the same changes at the same times, and the final host sets are the same. Fake timers are the clock.
 */
import { runWorkers } from '@ccm-kit/runtime/controller';
import { Workqueue } from '@ccm-kit/runtime/workqueue';
import {
  FakeCloud,
  initializedNode,
  loadBalancerService,
  MemoryInformer,
  RecordingEventRecorder,
} from '@ccm-kit/testing';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NODE_SYNC_KEY, ServiceController } from '../src/service/controller.js';
import { DEFAULT_HOST_UPDATE_WINDOW_MS, HostUpdateWindow } from '../src/service/host-update-window.js';
import { serviceQueueRateLimiter } from '../src/service/queue-backoff.js';
import { RecordingClient, RecordingQueue } from './service-fixtures.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('HostUpdateWindow', () => {
  it('a window of 0 enqueues at once for every change (upstream timing)', () => {
    const enqueue = vi.fn();
    const w = new HostUpdateWindow(0, enqueue);
    w.notify();
    w.notify();
    expect(enqueue).toHaveBeenCalledTimes(2);
    expect(w.pending).toBe(false);
  });
  it('changes within the window enqueue once, when the window closes; a later change opens a new window', () => {
    const enqueue = vi.fn();
    const w = new HostUpdateWindow(100, enqueue);
    w.notify();
    vi.advanceTimersByTime(60);
    w.notify();
    w.notify();
    expect(enqueue).not.toHaveBeenCalled();
    vi.advanceTimersByTime(40);
    expect(enqueue).toHaveBeenCalledTimes(1);
    // The window is not extended by later changes: the first change waits at most the window.
    w.notify();
    vi.advanceTimersByTime(99);
    expect(enqueue).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(enqueue).toHaveBeenCalledTimes(2);
  });
  it('flush enqueues now and closes the open window; stop drops it and ignores later changes', () => {
    const enqueue = vi.fn();
    const w = new HostUpdateWindow(100, enqueue);
    w.notify();
    w.flush();
    expect(enqueue).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(200);
    expect(enqueue).toHaveBeenCalledTimes(1);
    w.notify();
    w.stop();
    w.notify();
    w.flush();
    vi.advanceTimersByTime(200);
    expect(enqueue).toHaveBeenCalledTimes(1);
  });
  it('rejects a negative or non-finite window, naming the option', () => {
    expect(() => new HostUpdateWindow(-1, () => {})).toThrow(
      'hostUpdateWindowMs must be a finite number of ms ≥ 0, got -1',
    );
    expect(() => new HostUpdateWindow(Number.NaN, () => {})).toThrow(RangeError);
  });
});

/**
 * Upstream's rounds for Node changes at `times` (ms), each round taking `durationMs`: its `node` queue (one key
 * per Node name, one worker) starts a sync when a change arrives while it is idle, or right after a sync during
 * which changes arrived; a sync sends the Nodes present when it starts (controllers/service/controller.go
 * `processNextNodeItem`, `syncNodes`). Later keys whose Nodes an earlier sync already sent find nothing to do.
 */
function upstreamRounds(times: readonly number[], durationMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let rounds = 0;
  let free = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < sorted.length;) {
    const start = Math.max(sorted[i]!, free);
    while (i < sorted.length && sorted[i]! <= start) i++;
    rounds++;
    free = start + durationMs;
  }
  return rounds;
}

/** Mulberry32: a seeded generator, so that every schedule is reproducible. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BALANCERS = 3;
const UPDATE_MS = 150;

/**
 * Runs the controller's node worker over a real `node` queue while Nodes join at `times` (ms after the
 * start); every `UpdateLoadBalancer` takes {@link UPDATE_MS}. Returns the update rounds and the last host set
 * sent to each balancer.
 */
async function joinNodes(
  times: readonly number[],
  windowMs: number,
): Promise<{ rounds: number; lastHosts: string[][] }> {
  const cloud = new FakeCloud();
  cloud.faults.setLatency('updateLoadBalancer', UPDATE_MS);
  const services = new MemoryInformer<V1Service>();
  const nodes = new MemoryInformer<V1Node>();
  const svcs = Array.from({ length: BALANCERS }, (_, i) => loadBalancerService(`lb${i}`));
  services.set(...svcs);
  nodes.set(initializedNode('base'));
  const nodeQueue = new Workqueue<string>({ name: '', rateLimiter: serviceQueueRateLimiter<string>() });
  const controller = new ServiceController({
    cloud,
    client: new RecordingClient(),
    informers: { services: () => services, nodes: () => nodes },
    recorder: new RecordingEventRecorder(),
    serviceQueue: new RecordingQueue(),
    nodeQueue,
    config: { clusterName: 'test-cluster', hostUpdateWindowMs: windowMs },
  });
  for (const s of svcs) await controller.syncService(`default/${s.metadata!.name}`);
  const ac = new AbortController();
  const worker = runWorkers({ ...controller.nodeWorker(BALANCERS), workers: 1, signal: ac.signal });
  times.forEach((t, i) => setTimeout(() => nodes.add(initializedNode(`join${i}`)), t));
  await vi.advanceTimersByTimeAsync(Math.max(...times) + windowMs + 10 * UPDATE_MS);
  ac.abort();
  nodeQueue.shutDown();
  await worker;
  const calls = cloud.updateCalls;
  expect(calls.length % BALANCERS).toBe(0);
  const lastHosts = svcs.map((s) =>
    calls
      .filter((c) => c.service.metadata!.name === s.metadata!.name)
      .at(-1)!
      .hosts.map((n) => n.metadata!.name!)
      .sort(),
  );
  return { rounds: calls.length / BALANCERS, lastHosts };
}

const allHosts = (n: number) => ['base', ...Array.from({ length: n }, (_, i) => `join${i}`)].sort();

describe('coalesced host updates', () => {
  it(`without the option, a Node change waits the default window of ${DEFAULT_HOST_UPDATE_WINDOW_MS} ms`, () => {
    const nodes = new MemoryInformer<V1Node>();
    const nodeQueue = new RecordingQueue();
    new ServiceController({
      cloud: new FakeCloud(),
      client: new RecordingClient(),
      informers: { services: () => new MemoryInformer<V1Service>(), nodes: () => nodes },
      recorder: new RecordingEventRecorder(),
      serviceQueue: new RecordingQueue(),
      nodeQueue,
      config: { clusterName: 'c' },
    });
    nodes.add(initializedNode('n1'));
    vi.advanceTimersByTime(DEFAULT_HOST_UPDATE_WINDOW_MS - 1);
    expect(nodeQueue.added).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(nodeQueue.added).toEqual([NODE_SYNC_KEY]);
  });

  it('a burst of Nodes joining within the window costs one UpdateLoadBalancer per balancer', async () => {
    const times = [0, 10, 20, 30, 40];
    const { rounds, lastHosts } = await joinNodes(times, 100);
    expect(rounds).toBe(1);
    expect(upstreamRounds(times, UPDATE_MS)).toBe(2);
    for (const hosts of lastHosts) expect(hosts).toEqual(allHosts(5));
  });

  it("a window of 0 makes exactly upstream's rounds", async () => {
    for (const times of [
      [0, 10, 20, 30, 40],
      [0, 200, 400, 600],
      [0, 100, 160, 170, 500, 520],
    ]) {
      const { rounds, lastHosts } = await joinNodes(times, 0);
      expect(rounds).toBe(upstreamRounds(times, UPDATE_MS));
      for (const hosts of lastHosts) expect(hosts).toEqual(allHosts(times.length));
    }
  });

  it('at any timing, never more rounds than upstream, and every balancer ends with every Node', async () => {
    const next = random(20_260_518);
    for (const windowMs of [50, 100, 250, 500]) {
      for (let run = 0; run < 8; run++) {
        const count = 2 + Math.floor(next() * 8);
        const span = Math.floor(next() * 3_000);
        const times = Array.from({ length: count }, () => Math.floor(next() * span) + 1);
        const { rounds, lastHosts } = await joinNodes(times, windowMs);
        expect(rounds, `window ${windowMs} ms, joins at ${times.join(',')}`).toBeLessThanOrEqual(
          upstreamRounds(times, UPDATE_MS),
        );
        for (const hosts of lastHosts) expect(hosts).toEqual(allHosts(count));
      }
    }
  });

  it("the informers' initial list queues the node sync at once (decision 0204); later changes wait", () => {
    const nodes = new MemoryInformer<V1Node>();
    const nodeQueue = new RecordingQueue();
    new ServiceController({
      cloud: new FakeCloud(),
      client: new RecordingClient(),
      informers: { services: () => new MemoryInformer<V1Service>(), nodes: () => nodes },
      recorder: new RecordingEventRecorder(),
      serviceQueue: new RecordingQueue(),
      nodeQueue,
      config: { clusterName: 'c', hostUpdateWindowMs: 100 },
    });
    const initial = initializedNode('initial');
    for (const h of nodes.handlers) h.onAdd?.(initial, true);
    expect(nodeQueue.added).toEqual([NODE_SYNC_KEY]);
    nodes.add(initializedNode('later'));
    nodes.remove(initial);
    expect(nodeQueue.added).toEqual([NODE_SYNC_KEY]);
    vi.advanceTimersByTime(100);
    expect(nodeQueue.added).toEqual([NODE_SYNC_KEY, NODE_SYNC_KEY]);
  });
});

/**
 * Leader election on a real coordination.k8s.io/v1 Lease with short timings (lease 3000 ms, renew
 * deadline 2000 ms, retry 500 ms). Both candidates are sampled every 10 ms: they must never lead at
 * the same time. Fail-over after the leader stops, immediate hand-over with releaseOnCancel, and
 * stepping down when the API server goes away.
 */
import { useControlPlane } from '@ccm-kit/testing/vitest';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientFactory, createClientFactory } from '../src/client/index.js';
import { type LeaderElectionOptions, LeaderElector } from '../src/leader-election/index.js';
import { parseTime } from '../src/client/time.js';
import { until } from './until.js';

const cp = useControlPlane();
const timings = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };

interface Candidate {
  el: LeaderElector;
  ac: AbortController;
  done: Promise<void>;
  events: string[];
}

/** Samples every 10 ms; records the longest overlap (ms) during which more than one candidate led. */
function sampler(cands: () => Candidate[]) {
  let overlapSamples = 0;
  let samples = 0;
  const t = setInterval(() => {
    samples++;
    if (cands().filter((c) => c.el.isLeader()).length > 1) overlapSamples++;
  }, 10);
  return {
    stop: () => clearInterval(t),
    get overlapSamples() {
      return overlapSamples;
    },
    get samples() {
      return samples;
    },
  };
}

describe('leader election against a real API server', () => {
  let clients: ClientFactory;
  let coord: CoordinationV1Api;
  beforeAll(async () => {
    clients = createClientFactory({ kubeConfig: cp().kubeConfig, qps: -1, timeoutMs: 5000 });
    coord = clients.client('leader-election', CoordinationV1Api);
    await clients.client('setup', CoreV1Api).createNamespace({ body: { metadata: { name: 'le-test' } } });
  });
  afterAll(async () => {
    await clients?.close();
  });

  function start(identity: string, lockName: string, extra: Partial<LeaderElectionOptions> = {}): Candidate {
    const ac = new AbortController();
    const events: string[] = [];
    const el = new LeaderElector({
      client: coord,
      identity,
      lock: { namespace: 'le-test', name: lockName },
      ...timings,
      callbacks: {
        onStartedLeading: () => events.push('started'),
        onStoppedLeading: () => events.push('stopped'),
        onNewLeader: (id) => events.push(`leader ${id}`),
      },
      ...extra,
    });
    return { el, ac, events, done: el.run(ac.signal) };
  }

  it('one leader at a time; the other takes over about one lease duration after the leader stops', async () => {
    const a = start('a', 'failover');
    await until(() => a.el.isLeader(), 10_000, 'a to lead');
    const b = start('b', 'failover');
    const s = sampler(() => [a, b]);
    try {
      await until(() => b.events.includes('leader a'), 5000, 'b to observe a');
      await new Promise((r) => setTimeout(r, 4000)); // > lease duration: a keeps renewing, b keeps waiting
      expect(b.el.isLeader()).toBe(false);
      const lease = await coord.readNamespacedLease({ name: 'failover', namespace: 'le-test' });
      expect(lease.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 3, leaseTransitions: 0 });
      const renew = parseTime(lease.spec?.renewTime as unknown as string);
      expect(Date.now() - (renew?.getTime() ?? 0)).toBeLessThan(2000);

      const stoppedAt = performance.now();
      a.ac.abort(); // stops renewing; no release
      await a.done;
      expect(a.events).toEqual(['leader a', 'started', 'stopped']);
      const failover = await until(() => b.el.isLeader(), 10_000, 'b to take over');
      const sinceStop = performance.now() - stoppedAt;
      console.log(`fail-over: b led ${Math.round(sinceStop)} ms after a stopped (lease 3000 ms, retry 500 ms)`);
      // b must wait out the lease (from its last observation of a renewal, at most one retry period + jitter
      // before a stopped), and takes it at its next attempt.
      expect(failover).toBeGreaterThanOrEqual(3000 - 2 * 500 * 2.2);
      expect(failover).toBeLessThan(3000 + 500 * 2.2 + 1000);
      const after = await coord.readNamespacedLease({ name: 'failover', namespace: 'le-test' });
      expect(after.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
      expect(b.events).toEqual(['leader a', 'leader b', 'started']);
    } finally {
      s.stop();
      b.ac.abort();
      await b.done;
    }
    expect(s.overlapSamples).toBe(0);
    expect(s.samples).toBeGreaterThan(300);
  });

  it('releaseOnCancel hands over at once', async () => {
    const a = start('a', 'release', { releaseOnCancel: true });
    await until(() => a.el.isLeader(), 10_000, 'a to lead');
    const b = start('b', 'release');
    const s = sampler(() => [a, b]);
    try {
      await until(() => b.events.includes('leader a'), 5000, 'b to observe a');
      a.ac.abort();
      await a.done;
      const released = await coord.readNamespacedLease({ name: 'release', namespace: 'le-test' });
      // b may already have taken it; otherwise it shows the release itself.
      if (released.spec?.holderIdentity !== 'b')
        expect(released.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
      const ms = await until(() => b.el.isLeader(), 5000, 'b to take over');
      console.log(`hand-over with releaseOnCancel: ${Math.round(ms)} ms`);
      expect(ms).toBeLessThan(2500); // well under the 3 s lease: b need not wait it out
    } finally {
      s.stop();
      b.ac.abort();
      await b.done;
    }
    expect(s.overlapSamples).toBe(0);
  });

  it('the leader steps down within the renew deadline when the API server goes away, and nobody leads twice', async () => {
    const a = start('a', 'outage');
    await until(() => a.el.isLeader(), 10_000, 'a to lead');
    const b = start('b', 'outage');
    const s = sampler(() => [a, b]);
    try {
      await until(() => b.events.includes('leader a'), 5000, 'b to observe a');
      const down = performance.now();
      await cp().stopApiServer();
      await a.done; // leadership lost: run() returns
      const steppedDown = performance.now() - down;
      console.log(`leader stepped down ${Math.round(steppedDown)} ms after the API server stopped`);
      expect(steppedDown).toBeLessThan(2000 + 500 + 1500);
      expect(a.events.at(-1)).toBe('stopped');
      await cp().startApiServer();
      await until(() => b.el.isLeader(), 20_000, 'b to lead after the outage');
    } finally {
      s.stop();
      b.ac.abort();
      await b.done;
    }
    expect(s.overlapSamples).toBe(0);
  });
});

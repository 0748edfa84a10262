/**
 * The lease's validity against a real kube-apiserver and etcd (lease 3000 ms, renew deadline 2000 ms, retry
 * 500 ms): a leader that lost its lease while frozen sends no release when it is stopped
 * (docs/decisions/0052-fenced-leader-exits.md), and a candidate whose read was held up by an etcd outage for
 * longer than the renew deadline is not fenced the moment it wins (its validity counts from the acquiring write).
 */
import { useControlPlane } from '@ccm-kit/testing/vitest';
import {
  CoordinationV1Api,
  type CoordinationV1ApiCreateNamespacedLeaseRequest as CreateRequest,
  type CoordinationV1ApiReadNamespacedLeaseRequest as ReadRequest,
  type CoordinationV1ApiReplaceNamespacedLeaseRequest as ReplaceRequest,
  CoreV1Api,
  type V1Lease,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientFactory, createClientFactory } from '../src/client/index.js';
import { type LeaseClient, LeaderElector } from '../src/leader-election/index.js';
import { until } from './until.js';

const cp = useControlPlane();
const timings = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };
const NS = 'le-loss';

describe('lease validity against a real API server', () => {
  let clients: ClientFactory;
  let coord: CoordinationV1Api;
  beforeAll(async () => {
    clients = createClientFactory({ kubeConfig: cp().kubeConfig, qps: -1, timeoutMs: 30_000 });
    coord = clients.client('leader-election', CoordinationV1Api);
    await clients.client('setup', CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
  });
  afterAll(async () => {
    await clients?.close();
  });

  it('a leader frozen while another took the lease, then stopped, sends no release PUT', async () => {
    // a's Lease calls wait while it is "frozen", as a SIGSTOPped process' would; they go out on resuming.
    let frozen: Promise<void> | undefined;
    let thaw!: () => void;
    const aWrites: V1Lease[] = [];
    const aClient = {
      readNamespacedLease: async (p: ReadRequest) => {
        await frozen;
        return coord.readNamespacedLease(p);
      },
      createNamespacedLease: async (p: CreateRequest) => {
        await frozen;
        return coord.createNamespacedLease(p);
      },
      replaceNamespacedLease: async (p: ReplaceRequest) => {
        await frozen;
        aWrites.push(structuredClone(p.body));
        return coord.replaceNamespacedLease(p);
      },
    } as unknown as LeaseClient;
    const lock = { namespace: NS, name: 'frozen-leader' };
    const aStop = new AbortController();
    const a = new LeaderElector({
      client: aClient,
      identity: 'a',
      lock,
      ...timings,
      releaseOnCancel: true,
      callbacks: { onStartedLeading: () => {} },
    });
    const aDone = a.run(aStop.signal);
    await until(() => a.isLeader(), 10_000, 'a to lead');
    const bStop = new AbortController();
    const b = new LeaderElector({
      client: coord,
      identity: 'b',
      lock,
      ...timings,
      callbacks: { onStartedLeading: () => {} },
    });
    const bDone = b.run(bStop.signal);
    try {
      frozen = new Promise<void>((r) => (thaw = r));
      await until(() => b.isLeader(), 15_000, 'b to take over while a is frozen');
      expect(a.isFenced()).toBe(true);
      // a resumes: the manager deposes it at its first fenced check and stops its election at once.
      const writesBefore = aWrites.length;
      aStop.abort();
      thaw();
      await aDone;
      const releases = aWrites.slice(writesBefore).filter((w) => (w.spec?.holderIdentity ?? '') === '');
      expect(releases).toEqual([]);
      const lease = await coord.readNamespacedLease({ namespace: NS, name: lock.name });
      expect(lease.spec?.holderIdentity).toBe('b');
    } finally {
      thaw?.();
      aStop.abort();
      bStop.abort();
      await Promise.all([aDone, bDone]);
    }
  }, 60_000);

  it('a candidate whose read was held up by an etcd outage past the renew deadline is not fenced when it wins', async () => {
    const lock = { namespace: NS, name: 'held-read' };
    await coord.createNamespacedLease({
      namespace: NS,
      body: { metadata: { name: lock.name, namespace: NS }, spec: { holderIdentity: '', leaseDurationSeconds: 1 } },
    });
    const reads: { ms: number; ok: boolean }[] = [];
    const client = {
      readNamespacedLease: async (p: ReadRequest) => {
        const t0 = performance.now();
        try {
          const lease = await coord.readNamespacedLease(p);
          reads.push({ ms: performance.now() - t0, ok: true });
          return lease;
        } catch (err) {
          reads.push({ ms: performance.now() - t0, ok: false });
          throw err;
        }
      },
      createNamespacedLease: (p: CreateRequest) => coord.createNamespacedLease(p),
      replaceNamespacedLease: (p: ReplaceRequest) => coord.replaceNamespacedLease(p),
    } as unknown as LeaseClient;
    let validOnStart = Number.NaN;
    const stop = new AbortController();
    const el: LeaderElector = new LeaderElector({
      client,
      identity: 'c',
      lock,
      ...timings,
      callbacks: { onStartedLeading: () => (validOnStart = el.validForMs()) },
    });
    const restarting = cp().restartEtcd({ graceMs: 0, downMs: 3_000 });
    await new Promise((r) => setTimeout(r, 500)); // etcd is down
    const done = el.run(stop.signal);
    try {
      await until(() => el.isLeader(), 30_000, 'c to lead after the outage');
      await restarting;
      const heldUp = reads.find((r) => r.ok);
      console.log(
        `the winning read took ${Math.round(heldUp?.ms ?? 0)} ms; valid for ${Math.round(validOnStart)} ms on winning`,
      );
      expect(heldUp!.ms).toBeGreaterThan(timings.renewDeadlineMs);
      expect(validOnStart).toBeGreaterThan(timings.renewDeadlineMs - 1000);
    } finally {
      stop.abort();
      await done;
    }
  }, 90_000);
});

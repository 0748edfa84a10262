import { afterEach, describe, expect, it } from 'vitest';
import { metricsRegistry } from '../src/index.js';
import {
  type LeaderElectionOptions,
  LeaderElector,
  leaderElectionHealthCheck,
  runLeaderElection,
} from '../src/leader-election/index.js';
import { FakeLeaseServer } from './leader-election-fake-lease.js';
import { until } from './until.js';

const fast = { leaseDurationMs: 600, renewDeadlineMs: 400, retryPeriodMs: 50 };
const aborts: AbortController[] = [];
afterEach(() => {
  for (const a of aborts.splice(0)) a.abort();
});

function candidate(srv: FakeLeaseServer, identity: string, extra: Partial<LeaderElectionOptions> = {}) {
  const ac = new AbortController();
  aborts.push(ac);
  const log: string[] = [];
  let leadSignal: AbortSignal | undefined;
  const client = srv.client(identity);
  const el = new LeaderElector({
    client,
    identity,
    name: `test-${identity}`,
    ...fast,
    callbacks: {
      onStartedLeading: (s) => {
        leadSignal = s;
        log.push('started');
      },
      onStoppedLeading: () => log.push('stopped'),
      onNewLeader: (id) => log.push(`leader ${id}`),
    },
    ...extra,
  });
  const done = el.run(ac.signal);
  return {
    el,
    ac,
    log,
    done,
    client,
    get leadSignal() {
      return leadSignal;
    },
  };
}

async function gauge(name: string): Promise<number | undefined> {
  const m = await metricsRegistry.getSingleMetric('leader_election_master_status')?.get();
  return m?.values.find((v) => v.labels.name === name)?.value;
}

describe('LeaderElector', () => {
  it('creates the Lease, leads, renews with MicroTime timestamps, sets the gauge', async () => {
    const srv = new FakeLeaseServer();
    const a = candidate(srv, 'a');
    await until(() => a.el.isLeader());
    expect(a.log).toEqual(['leader a', 'started']);
    expect(await gauge('test-a')).toBe(1);
    const created = srv.writes[0];
    expect(created?.op).toBe('create');
    const spec = (created?.body as { spec: Record<string, unknown> } | undefined)?.spec ?? {};
    expect(spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(spec.renewTime).toMatch(/\.\d{6}Z$/);
    expect(spec.acquireTime).toMatch(/\.\d{6}Z$/);
    const acquire = srv.spec()?.acquireTime;
    await until(() => srv.writes.filter((w) => w.op === 'replace').length >= 3);
    expect(srv.spec()?.acquireTime).toEqual(acquire); // renewals keep acquireTime
    expect(srv.spec()?.renewTime).not.toEqual(acquire);
    expect(srv.spec()?.leaseTransitions).toBe(0);
  });

  it('a second candidate waits while the leader renews and reports it as leader', async () => {
    const srv = new FakeLeaseServer();
    const a = candidate(srv, 'a');
    await until(() => a.el.isLeader());
    const b = candidate(srv, 'b');
    await new Promise((r) => setTimeout(r, 1000)); // > lease duration: renewals keep it valid
    expect(b.el.isLeader()).toBe(false);
    expect(b.log).toEqual(['leader a']);
    expect(b.el.getLeader()).toBe('a');
  });

  it('takes over after the leader stops renewing, about one lease duration after its last change; transitions +1', async () => {
    const srv = new FakeLeaseServer();
    const a = candidate(srv, 'a');
    await until(() => a.el.isLeader());
    const b = candidate(srv, 'b');
    await until(() => b.log.includes('leader a'));
    a.ac.abort(); // stops without releasing
    await a.done;
    expect(a.log).toEqual(['leader a', 'started', 'stopped']);
    expect(a.leadSignal?.aborted).toBe(true);
    expect(await gauge('test-a')).toBe(0);
    const waited = await until(() => b.el.isLeader());
    // the lease (1 s as written, 600 ms rounded up) must run out first, measured from b's last observation
    expect(waited).toBeGreaterThanOrEqual(700);
    expect(waited).toBeLessThan(2000);
    expect(srv.spec()).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    expect(b.log).toEqual(['leader a', 'leader b', 'started']);
  });

  it('takes Go durations with sub-millisecond precision (a renew deadline of 400.5 ms): renews and releases', async () => {
    // `--leader-elect-renew-deadline=400.5ms` is a valid Go duration; AbortSignal.timeout wants whole ms.
    const srv = new FakeLeaseServer();
    const a = candidate(srv, 'a', { releaseOnCancel: true, renewDeadlineMs: 400.5, leaseDurationMs: 600.0005 });
    await until(() => a.el.isLeader());
    await until(() => srv.writes.filter((w) => w.op === 'replace').length >= 3);
    expect(a.el.isLeader()).toBe(true);
    a.ac.abort();
    await a.done;
    expect(srv.spec()).toMatchObject({ holderIdentity: '' });
    expect(a.log).toEqual(['leader a', 'started', 'stopped']);
  });

  it('releaseOnCancel hands over at once: holder "" and duration 1', async () => {
    const srv = new FakeLeaseServer();
    const a = candidate(srv, 'a', { releaseOnCancel: true, leaseDurationMs: 5000, renewDeadlineMs: 400 });
    await until(() => a.el.isLeader());
    const b = candidate(srv, 'b', { leaseDurationMs: 5000, renewDeadlineMs: 400 });
    await until(() => b.log.includes('leader a'));
    a.ac.abort();
    await a.done;
    const released = srv.writes.filter((w) => w.by === 'a').at(-1)?.body as { spec: Record<string, unknown> };
    expect(released.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    const waited = await until(() => b.el.isLeader());
    expect(waited).toBeLessThan(1500); // far less than the 5 s lease
  });

  it('steps down within the renew deadline when renewals fail, aborting the leading signal', async () => {
    const srv = new FakeLeaseServer();
    const a = candidate(srv, 'a');
    await until(() => a.el.isLeader());
    const t0 = performance.now();
    a.client.down = true;
    await a.done; // run() returns after losing leadership
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeLessThan(fast.renewDeadlineMs + fast.retryPeriodMs + 200);
    expect(a.el.isLeader()).toBe(false);
    expect(a.leadSignal?.aborted).toBe(true);
    expect(a.log.at(-1)).toBe('stopped');
  });

  it('judges expiry by its own observation time, not the record timestamps (clock skew)', async () => {
    const srv = new FakeLeaseServer();
    // A lease held by a silent candidate whose clock is a day behind.
    const old = new Date(Date.now() - 86_400_000).toISOString().replace('Z', '000Z');
    await srv.client('x').createNamespacedLease({
      namespace: 'kube-system',
      body: {
        metadata: { name: 'cloud-controller-manager' },
        spec: {
          holderIdentity: 'skewed',
          leaseDurationSeconds: 1,
          renewTime: old as never,
          acquireTime: old as never,
        },
      },
    });
    const b = candidate(srv, 'b');
    const waited = await until(() => b.el.isLeader());
    expect(waited).toBeGreaterThanOrEqual(900); // waited a full lease after first seeing it
    // And a record dated in the future does not block a takeover either.
    const srv2 = new FakeLeaseServer();
    const future = new Date(Date.now() + 86_400_000).toISOString().replace('Z', '000Z');
    await srv2.client('x').createNamespacedLease({
      namespace: 'kube-system',
      body: {
        metadata: { name: 'cloud-controller-manager' },
        spec: { holderIdentity: 'skewed', leaseDurationSeconds: 1, renewTime: future as never },
      },
    });
    const c = candidate(srv2, 'c');
    expect(await until(() => c.el.isLeader())).toBeLessThan(2000);
  });

  it('the health check fails only when leading with an overdue renewal', async () => {
    let now = 0;
    const srv = new FakeLeaseServer();
    const a = candidate(srv, 'a', { now: () => now });
    const check = leaderElectionHealthCheck(a.el, 1000);
    expect(() => check()).not.toThrow(); // not leading yet
    await until(() => a.el.isLeader());
    now += 1500; // lease 600 + tolerance 1000 not yet exceeded
    expect(() => check()).not.toThrow();
    a.client.down = true; // renewals stop updating the observed time
    now += 200;
    expect(() => check()).toThrow(/failed election to renew leadership on lease kube-system\/cloud-controller-manager/);
    const later: LeaderElector | undefined = undefined;
    expect(() => leaderElectionHealthCheck(() => later)()).not.toThrow();
  });

  it('isolates callback errors', async () => {
    const srv = new FakeLeaseServer();
    const a = candidate(srv, 'a', {
      callbacks: {
        onStartedLeading: async () => Promise.reject(new Error('work failed')),
        onNewLeader: () => {
          throw new Error('bad observer');
        },
      },
    });
    await until(() => a.el.isLeader());
    a.ac.abort();
    await expect(a.done).resolves.toBeUndefined();
  });

  it('validates options, naming the field', () => {
    const client = new FakeLeaseServer().client('v');
    const cb = { onStartedLeading: () => undefined };
    expect(() => new LeaderElector({ client, callbacks: cb, leaseDurationMs: 1000, renewDeadlineMs: 1000 })).toThrow(
      /leaseDurationMs \(1000\) must be greater than renewDeadlineMs/,
    );
    expect(() => new LeaderElector({ client, callbacks: cb, renewDeadlineMs: 2000, retryPeriodMs: 2000 })).toThrow(
      /renewDeadlineMs \(2000\) must be greater than retryPeriodMs/,
    );
    expect(() => new LeaderElector({ client, callbacks: cb, retryPeriodMs: 0 })).toThrow(/retryPeriodMs must be > 0/);
    expect(() => new LeaderElector({ client, callbacks: cb, lock: { namespace: '' } })).toThrow(/lock.namespace/);
    expect(() => new LeaderElector({ client, callbacks: {} as never })).toThrow(/onStartedLeading/);
    const d = new LeaderElector({ client, callbacks: cb });
    expect(d.lock.describe()).toBe('kube-system/cloud-controller-manager');
    expect([d.leaseDurationMs, d.renewDeadlineMs, d.retryPeriodMs]).toEqual([15000, 10000, 2000]);
    expect(d.identity).toMatch(/_[0-9a-f-]{36}$/);
  });

  it('runLeaderElection resolves when cancelled', async () => {
    const srv = new FakeLeaseServer();
    const ac = new AbortController();
    let started = false;
    const p = runLeaderElection({
      client: srv.client('r'),
      identity: 'r',
      ...fast,
      signal: ac.signal,
      callbacks: {
        onStartedLeading: () => {
          started = true;
        },
      },
    });
    await until(() => started);
    ac.abort();
    await expect(p).resolves.toBeUndefined();
  });
});

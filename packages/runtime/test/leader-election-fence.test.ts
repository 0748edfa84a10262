import { CoreV1Api } from '@kubernetes/client-node';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { createClientFactory } from '../src/client/index.js';
import { isLeaseFencedError, LeaderElector, type LeaseFence, LeaseFencedError } from '../src/leader-election/index.js';
import { checkFence, fenceSignal, leaseWriteGuard, clientFactoryTransport } from '../src/internal.js';
import { sendJson, startTestServer, type TestServer } from './client-test-server.js';
import { FakeLeaseServer } from './leader-election-fake-lease.js';

const aborts: AbortController[] = [];
afterEach(() => {
  for (const a of aborts.splice(0)) a.abort();
});

/** Polls every 5 ms, for up to 5 s. */
const UNTIL = { timeoutMs: 5_000, intervalMs: 5 };
/** Short timings: lease 600 ms, renew deadline 400 ms, retry 50 ms. */
const FAST = { leaseDurationMs: 600, renewDeadlineMs: 400, retryPeriodMs: 50 };

function elector(srv: FakeLeaseServer, identity: string, now: () => number) {
  const ac = new AbortController();
  aborts.push(ac);
  const client = srv.client(identity);
  const el = new LeaderElector({
    client,
    identity,
    name: `fence-${identity}`,
    ...FAST,
    now,
    callbacks: { onStartedLeading: () => {} },
  });
  void el.run(ac.signal);
  return { el, client, ac };
}

describe('LeaderElector.isFenced', () => {
  it('is fenced before leading, unfenced after acquiring, fenced once the last renewal is older than the renew deadline, unfenced after the next renewal', async () => {
    let now = 1_000;
    const srv = new FakeLeaseServer();
    const { el, client } = elector(srv, 'a', () => now);
    expect(el.isFenced()).toBe(true); // not leading yet
    await eventuallyValue(() => el.isLeader(), UNTIL);
    expect(el.isFenced()).toBe(false);
    client.down = true; // renewals fail from now on
    now += 399;
    expect(el.isFenced()).toBe(false);
    now += 1; // 400 ms since the last successful renewal started: the renew deadline
    expect(el.isFenced()).toBe(true);
    expect(el.isLeader()).toBe(true); // still leading as far as client-go's rules go: only the fence stops it
    client.down = false;
    const writes = srv.writes.length;
    await eventuallyValue(() => srv.writes.length > writes, UNTIL); // the next renewal
    expect(el.isFenced()).toBe(false);
  });

  it('dates a renewal from when its write was sent, not from when the answer came', async () => {
    let now = 0;
    const srv = new FakeLeaseServer();
    const { el, client } = elector(srv, 'a', () => now);
    await eventuallyValue(() => el.isLeader(), UNTIL);
    // The renewal request takes 300 ms of (fake) time: the fence counts from its start.
    const replace = client.replaceNamespacedLease.bind(client);
    let slow = 0;
    client.replaceNamespacedLease = (async (p: Parameters<typeof replace>[0]) => {
      const started = now;
      now += 300;
      slow = started;
      return replace(p);
    }) as typeof client.replaceNamespacedLease;
    await eventuallyValue(() => slow > 0, UNTIL);
    await eventuallyValue(() => !el.isFenced(), UNTIL);
    now = slow + 399;
    client.down = true;
    expect(el.isFenced()).toBe(false);
    now = slow + 400;
    expect(el.isFenced()).toBe(true);
  });

  it('dates an acquisition from when its acquiring write was sent, not from before a read that was held up', async () => {
    let now = 0;
    const srv = new FakeLeaseServer();
    // A released lease: the candidate reads it, then takes it with an update.
    await srv.client('old').createNamespacedLease({
      namespace: 'kube-system',
      body: {
        metadata: { name: 'cloud-controller-manager', namespace: 'kube-system' },
        spec: { holderIdentity: '', leaseDurationSeconds: 1 },
      },
    });
    const client = srv.client('a');
    const read = client.readNamespacedLease.bind(client);
    client.readNamespacedLease = (async (p: Parameters<typeof read>[0]) => {
      now += 390; // the read waited 390 ms (an etcd outage), just under the renew deadline of 400 ms
      return read(p);
    }) as typeof client.readNamespacedLease;
    const ac = new AbortController();
    aborts.push(ac);
    let validOnStart = Number.NaN;
    const el: LeaderElector = new LeaderElector({
      client,
      identity: 'a',
      ...FAST,
      now: () => now,
      callbacks: { onStartedLeading: () => (validOnStart = el.validForMs()) },
    });
    void el.run(ac.signal);
    await eventuallyValue(() => el.isLeader(), UNTIL);
    expect(validOnStart).toBe(400);
  });

  it('stays unfenced while a cancelled leader waits for its work to end, until it releases the lease', async () => {
    const now = 0;
    const srv = new FakeLeaseServer();
    const ac = new AbortController();
    let finishWork!: () => void;
    const seen: boolean[] = [];
    const el = new LeaderElector({
      client: srv.client('a'),
      identity: 'a',
      ...FAST,
      releaseOnCancel: true,
      now: () => now,
      callbacks: {
        onStartedLeading: (signal) =>
          new Promise<void>((resolve) => {
            finishWork = () => {
              seen.push(el.isFenced()); // the work's last write, after the stop
              resolve();
            };
            signal.addEventListener('abort', () => seen.push(el.isFenced()));
          }),
      },
    });
    const done = el.run(ac.signal);
    await eventuallyValue(() => el.isLeader(), UNTIL);
    ac.abort();
    await new Promise((r) => setTimeout(r, 20));
    finishWork();
    await done;
    expect(seen).toEqual([false, false]);
    expect(el.isFenced()).toBe(true); // released
    expect(srv.spec()?.holderIdentity).toBe('');
  });

  it('does not release a lease it failed to renew within the renew deadline when cancelled: the lease counts as lost', async () => {
    let now = 0;
    const srv = new FakeLeaseServer();
    const ac = new AbortController();
    const stopped: string[] = [];
    const el = new LeaderElector({
      client: srv.client('a'),
      identity: 'a',
      ...FAST,
      releaseOnCancel: true,
      now: () => now,
      callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => stopped.push('stopped') },
    });
    const done = el.run(ac.signal);
    await eventuallyValue(() => el.isLeader(), UNTIL);
    const writes = srv.writes.length;
    now += 400; // paused past the renew deadline: deposed, the manager stops the election
    ac.abort();
    await done;
    expect(srv.writes.slice(writes)).toEqual([]);
    expect(srv.spec()?.holderIdentity).toBe('a');
    expect(stopped).toEqual(['stopped']);
  });

  it('is fenced after leadership is lost', async () => {
    const srv = new FakeLeaseServer();
    const { el, client } = elector(srv, 'a', () => performance.now());
    await eventuallyValue(() => el.isLeader(), UNTIL);
    client.down = true;
    await eventuallyValue(() => !el.isLeader(), UNTIL);
    expect(el.isFenced()).toBe(true);
  });
});

describe('checkFence / leaseWriteGuard', () => {
  const fenced: LeaseFence = { isFenced: () => true, validForMs: () => 0, describe: () => 'kube-system/ccm' };
  const open: LeaseFence = { isFenced: () => false, validForMs: () => 10_000, describe: () => 'kube-system/ccm' };

  it('checkFence throws a LeaseFencedError naming the action and the lease only while fenced', () => {
    expect(() => checkFence(open, 'x')).not.toThrow();
    expect(() => checkFence(undefined, 'x')).not.toThrow();
    let err: unknown;
    try {
      checkFence(fenced, 'cloud call LoadBalancer.ensureLoadBalancer');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LeaseFencedError);
    expect(isLeaseFencedError(err)).toBe(true);
    expect((err as Error).message).toMatch(
      /^cloud call LoadBalancer\.ensureLoadBalancer refused: .*lease kube-system\/ccm within the renew deadline/,
    );
  });

  it('refuses writes but not reads, Lease requests or Events', () => {
    const guard = leaseWriteGuard(() => fenced);
    const u = (p: string) => new URL(`https://h${p}`);
    expect(() => guard('GET', u('/api/v1/nodes'))).not.toThrow();
    expect(() => guard('PUT', u('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ccm'))).not.toThrow();
    expect(() => guard('POST', u('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases'))).not.toThrow();
    expect(() => guard('POST', u('/api/v1/namespaces/default/events'))).not.toThrow();
    expect(() => guard('PATCH', u('/api/v1/namespaces/default/events/e1'))).not.toThrow();
    expect(() => guard('DELETE', u('/api/v1/nodes/n1'))).toThrow(LeaseFencedError);
    expect(() => guard('PATCH', u('/api/v1/namespaces/default/services/s/status'))).toThrow(
      /API write PATCH \/api\/v1\/namespaces\/default\/services\/s\/status refused/,
    );
    expect(() => leaseWriteGuard(() => undefined)('DELETE', u('/api/v1/nodes/n1'))).not.toThrow();
  });
});

describe('RestTransport.setWriteGuard', () => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
  });

  it('a refused request never reaches the server; allowed ones do', async () => {
    srv = await startTestServer((req, res) =>
      sendJson(res, 200, { apiVersion: 'v1', kind: 'Node', metadata: { name: req.url.pathname.split('/').pop() } }),
    );
    const f = createClientFactory({ kubeConfig: srv.kubeConfig });
    let isFenced = true;
    clientFactoryTransport(f).setWriteGuard(
      leaseWriteGuard(() => ({
        isFenced: () => isFenced,
        validForMs: () => (isFenced ? 0 : 60_000),
        describe: () => 'ns/l',
      })),
    );
    const core = f.client('t', CoreV1Api);
    await expect(core.deleteNode({ name: 'n1' })).rejects.toThrow(LeaseFencedError);
    expect(srv.requests).toHaveLength(0);
    await core.readNode({ name: 'n1' });
    expect(srv.requests.map((r) => r.method)).toEqual(['GET']);
    isFenced = false;
    await core.deleteNode({ name: 'n1' });
    expect(srv.requests.map((r) => r.method)).toEqual(['GET', 'DELETE']);
    await f.close();
  });
});

describe('a deposed leader', () => {
  it('does not take back a lease another candidate holds (regression: the fast renew path overwrote it after a re-read)', async () => {
    const srv = new FakeLeaseServer();
    const { el } = elector(srv, 'a', () => performance.now());
    await eventuallyValue(() => el.isLeader(), UNTIL);
    // Another candidate takes the lease (as after this leader was paused longer than the lease).
    const b = srv.client('b');
    const cur = await b.readNamespacedLease({ name: 'cloud-controller-manager', namespace: 'kube-system' });
    const now = new Date();
    await b.replaceNamespacedLease({
      name: 'cloud-controller-manager',
      namespace: 'kube-system',
      body: { ...cur, spec: { ...cur.spec, holderIdentity: 'b', acquireTime: now as never, renewTime: now as never } },
    });
    const takenAt = srv.writes.length;
    await eventuallyValue(() => !el.isLeader(), UNTIL);
    expect(srv.spec()?.holderIdentity).toBe('b');
    expect(srv.writes.slice(takenAt).filter((w) => w.by === 'a')).toEqual([]);
    expect(el.isFenced()).toBe(true);
  });
});

describe('fenceSignal', () => {
  it('throws while fenced, aborts with a LeaseFencedError when the fence closes, and is undefined without a fence', async () => {
    let left = 0;
    const fence: LeaseFence = { isFenced: () => left <= 0, validForMs: () => left, describe: () => 'ns/l' };
    expect(() => fenceSignal(fence, 'x')).toThrow(LeaseFencedError);
    expect(fenceSignal(undefined, 'x')).toBeUndefined();
    left = 30;
    const signal = fenceSignal(fence, 'cloud request GET /v1/servers')!;
    expect(signal.aborted).toBe(false);
    await eventuallyValue(() => signal.aborted, UNTIL);
    expect(isLeaseFencedError(signal.reason)).toBe(true);
    expect((signal.reason as Error).message).toMatch(/^cloud request GET \/v1\/servers refused/);
  });
});

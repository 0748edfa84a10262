/**
 * A deposed leader stops at once (docs/decisions/0052-fenced-leader-exits.md): the first check that finds the
 * leading replica fenced deposes it. Unit tests with a controllable fence, then a whole manager whose event loop
 * is blocked past its renew deadline (as SIGSTOP would), against the in-memory API server stand-in.
 */
import type { CloudProvider, LoadBalancer } from '@ccm-kit/cloud-provider';
import type { ControllerDescriptor } from '@ccm-kit/controllers';
import { CoreV1Client } from '@ccm-kit/runtime/client';
import { coreV1EventSink, EventBroadcaster } from '@ccm-kit/runtime/events';
import { isLeaseFencedError, type LeaseFence } from '@ccm-kit/runtime/leader-election';
import { leaseWriteGuard } from '@ccm-kit/runtime/internal';
import { useLogCapture } from '@ccm-kit/testing/vitest';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LeaderElectionLostError, startCloudControllerManager } from '../src/index.js';
import { Deposition } from '../src/manager/deposition.js';
import { type FakeApiServer, startFakeApiServer } from './fake-apiserver.js';

/** A fence the test opens and closes. */
function controllableFence(): LeaseFence & { open: boolean } {
  const f = {
    open: true,
    isFenced: () => !f.open,
    validForMs: () => (f.open ? 5_000 : 0),
    describe: () => 'kube-system/cloud-controller-manager',
  };
  return f;
}

describe('Deposition', () => {
  it('the first fenced check while leading deposes: the signal aborts, onDeposed runs once, the fence stays closed', () => {
    const fence = controllableFence();
    const onDeposed = vi.fn();
    const d = new Deposition(
      () => fence,
      () => true,
      onDeposed,
    );
    expect(d.fence.isFenced()).toBe(false);
    expect(d.deposed).toBe(false);
    fence.open = false;
    expect(d.fence.isFenced()).toBe(true);
    expect(d.deposed).toBe(true);
    expect(isLeaseFencedError(d.signal.reason)).toBe(true);
    expect(d.fence.validForMs()).toBe(0);
    // A later renewal does not reopen it, and a deposed leader is deposed only once.
    fence.open = true;
    expect(d.fence.isFenced()).toBe(true);
    expect(onDeposed).toHaveBeenCalledExactlyOnceWith('kube-system/cloud-controller-manager');
  });

  it('a standby (not leading) is refused but not deposed', () => {
    const fence = controllableFence();
    fence.open = false;
    const onDeposed = vi.fn();
    const d = new Deposition(
      () => fence,
      () => false,
      onDeposed,
    );
    expect(d.fence.isFenced()).toBe(true);
    expect(d.deposed).toBe(false);
    fence.open = true;
    expect(d.fence.isFenced()).toBe(false);
    expect(onDeposed).not.toHaveBeenCalled();
  });

  it('without leader election nothing is fenced', () => {
    const d = new Deposition(
      () => undefined,
      () => true,
      vi.fn(),
    );
    expect(d.fence.isFenced()).toBe(false);
    expect(d.fence.validForMs()).toBe(Number.POSITIVE_INFINITY);
  });

  it('the write guard refuses Events once deposed, and only then', () => {
    const fence = controllableFence();
    const d = new Deposition(
      () => fence,
      () => true,
      vi.fn(),
    );
    const guard = leaseWriteGuard(() => d.fence, { refuseEvents: () => d.deposed });
    const event = new URL('https://api/api/v1/namespaces/default/events');
    const lease = new URL('https://api/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x');
    const node = new URL('https://api/api/v1/nodes/a');
    guard('POST', event);
    guard('PATCH', node);
    fence.open = false;
    guard('POST', event); // fenced but not yet deposed: Events still pass
    expect(() => guard('PATCH', node)).toThrow(/refused/); // this check deposes
    expect(() => guard('POST', event)).toThrow(/refused/);
    guard('PUT', lease);
  });
});

describe('a leader paused past its renew deadline (the event loop blocked, as SIGSTOP would)', () => {
  let api: FakeApiServer;
  const lines = useLogCapture();
  beforeEach(async () => {
    api = await startFakeApiServer();
  });
  afterEach(async () => {
    await api.close();
  });

  it('is deposed by its first refused call: one refusal, no Event, "leaderelection lost", done rejects within a second', async () => {
    let cloudCalls = 0;
    const refusals: unknown[] = [];
    const lb: LoadBalancer = {
      getLoadBalancer: async () => {
        cloudCalls++;
        return undefined;
      },
      getLoadBalancerName: () => 'a',
      ensureLoadBalancer: async () => ({}),
      updateLoadBalancer: async () => {},
      ensureLoadBalancerDeleted: async () => {},
    };
    const cloud: CloudProvider = { providerName: () => 'test', hasClusterID: () => true, loadBalancer: () => lb };
    const svc = { metadata: { name: 's', namespace: 'default', uid: 'u1' } };
    // A controller that calls the cloud every 10 ms and records a Warning Event for each failure, as the
    // service controller does.
    const poller: ControllerDescriptor = {
      name: 'poller',
      clientName: 'poller',
      async init(ctx) {
        const broadcaster = new EventBroadcaster({ retryIntervalMs: 10 });
        broadcaster.startRecordingToSink(coreV1EventSink(ctx.clients.client('poller', CoreV1Client)));
        const recorder = broadcaster.newRecorder('poller');
        const facet = ctx.cloud.loadBalancer!()!;
        const done = (async () => {
          while (!ctx.signal.aborted) {
            try {
              await facet.getLoadBalancer('c', svc);
            } catch (err) {
              refusals.push(err);
              recorder.event(
                { kind: 'Service', apiVersion: 'v1', ...svc },
                'Warning',
                'SyncLoadBalancerFailed',
                String(err),
              );
            }
            await new Promise((r) => setTimeout(r, 10));
          }
          await broadcaster.shutdown(2_000);
        })();
        return { started: true, done };
      },
    };
    const ccm = await startCloudControllerManager({
      argv: [
        '--cloud-provider=test',
        '--secure-port=0',
        '--controllers=poller',
        // Long enough that a loaded test machine renews in time before the pause.
        '--leader-elect-lease-duration=4s',
        '--leader-elect-renew-deadline=3s',
        '--leader-elect-retry-period=250ms',
      ],
      cloud,
      kubeConfig: api.kubeConfig,
      controllers: [poller],
    });
    await vi.waitFor(() => expect(cloudCalls).toBeGreaterThan(3), { timeout: 10_000 });
    expect(refusals).toEqual([]);
    const requestsBefore = api.requests.length;
    const callsBefore = cloudCalls;
    // Blocks this thread (timers, sockets, everything) for longer than the renew deadline and the lease.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4_500);
    const resumed = performance.now();
    await expect(ccm.done).rejects.toBeInstanceOf(LeaderElectionLostError);
    const exitedAfterMs = performance.now() - resumed;
    expect(exitedAfterMs).toBeLessThan(3_000); // the stop is bounded at 1 s (LOST_LEASE_STOP_BOUND_MS); slack for a loaded machine
    expect(cloudCalls).toBe(callsBefore);
    expect(refusals).toHaveLength(1);
    expect(isLeaseFencedError(refusals[0])).toBe(true);
    const after = api.requests.slice(requestsBefore);
    expect(after.filter((r) => r.path.includes('/events'))).toEqual([]);
    expect(after.filter((r) => r.method !== 'GET' && !r.path.includes('/leases'))).toEqual([]);
    const lost = lines.filter((l) => l.includes('"leaderelection lost"'));
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatch(/^E\d{4} .*\] "leaderelection lost" logger="cloud-controller-manager"$/);
    expect(lines.filter((l) => l.includes('refused')).length).toBeLessThanOrEqual(1);
  }, 30_000);
});

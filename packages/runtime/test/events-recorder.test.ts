import { setVerbosity } from '@ccm-kit/runtime';
import { coreV1EventSink, EventBroadcaster, type EventPatch, type EventSink } from '@ccm-kit/runtime/events';
import { getReference } from '@ccm-kit/runtime/internal';
import {
  ApiException,
  type CoreV1Api,
  type CoreV1Event,
  HttpMethod,
  RequestContext,
  V1Node,
} from '@kubernetes/client-node';
import { useLogCapture } from '@ccm-kit/testing/vitest';
import { afterEach, describe, expect, it, vi } from 'vitest';

const lines = useLogCapture();
afterEach(() => {
  setVerbosity(0);
  vi.useRealTimers();
});

type Call =
  | { op: 'create'; namespace: string; event: CoreV1Event }
  | { op: 'patch'; namespace: string; name: string; patch: EventPatch };

/** An in-memory API server for events: stores them, counts calls, can fail on demand. */
class FakeSink implements EventSink {
  calls: Call[] = [];
  store = new Map<string, CoreV1Event>();
  failures: unknown[] = [];
  hang = false;
  #rv = 0;

  async create(namespace: string, event: CoreV1Event): Promise<CoreV1Event> {
    this.calls.push({ op: 'create', namespace, event: structuredClone(event) });
    await this.#maybeFail();
    const key = `${namespace}/${event.metadata.name}`;
    if (this.store.has(key)) throw new ApiException(409, 'exists', JSON.stringify({ reason: 'AlreadyExists' }), {});
    const stored = {
      ...structuredClone(event),
      metadata: { ...event.metadata, resourceVersion: String(++this.#rv) },
    };
    this.store.set(key, stored);
    return stored;
  }

  async patch(namespace: string, name: string, patch: EventPatch): Promise<CoreV1Event> {
    this.calls.push({ op: 'patch', namespace, name, patch: structuredClone(patch) });
    await this.#maybeFail();
    const key = `${namespace}/${name}`;
    const cur = this.store.get(key);
    if (!cur) throw new ApiException(404, 'not found', JSON.stringify({ reason: 'NotFound' }), {});
    const next = {
      ...cur,
      ...patch,
      metadata: { ...cur.metadata, resourceVersion: String(++this.#rv) },
    } as CoreV1Event;
    this.store.set(key, next);
    return next;
  }

  async #maybeFail(): Promise<void> {
    if (this.hang) await new Promise(() => {});
    const f = this.failures.shift();
    if (f !== undefined) throw f;
  }
}

const nodeObj = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'node-1', uid: 'u1', resourceVersion: '7' },
};
const svcObj = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'lb', namespace: 'team-a', uid: 'u2' },
};

function setup(opts: ConstructorParameters<typeof EventBroadcaster>[0] = {}) {
  const sink = new FakeSink();
  const b = new EventBroadcaster({ retryIntervalMs: 1, random: () => 0, ...opts });
  b.startRecordingToSink(sink);
  const r = b.newRecorder('cloud-node-controller');
  return { sink, b, r };
}

describe('EventRecorder', () => {
  it('writes a Node event to namespace default with the upstream shape', async () => {
    const { sink, b, r } = setup();
    r.event(nodeObj, 'Normal', 'Synced', 'Node synced successfully');
    await b.shutdown();
    expect(sink.calls).toHaveLength(1);
    const call = sink.calls[0] as Extract<Call, { op: 'create' }>;
    expect(call.op).toBe('create');
    expect(call.namespace).toBe('default');
    const e = call.event;
    expect(e.metadata.namespace).toBe('default');
    expect(e.metadata.name).toMatch(/^node-1\.[0-9a-f]{12,}$/);
    expect(e.involvedObject).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      name: 'node-1',
      uid: 'u1',
      resourceVersion: '7',
    });
    expect(e).toMatchObject({
      type: 'Normal',
      reason: 'Synced',
      message: 'Node synced successfully',
      count: 1,
      source: { component: 'cloud-node-controller' },
      reportingComponent: 'cloud-node-controller',
    });
    expect(e.firstTimestamp).toEqual(e.lastTimestamp);
  });

  it("writes a namespaced object's event in its namespace, with host and annotations", async () => {
    const sink = new FakeSink();
    const b = new EventBroadcaster({ retryIntervalMs: 1 });
    b.startRecordingToSink(sink);
    b.newRecorder('service-controller', 'host-1').annotatedEventf(
      svcObj,
      { a: 'b' },
      'Warning',
      'SyncLoadBalancerFailed',
      'Error syncing load balancer: %v',
      new Error('quota'),
    );
    await b.shutdown();
    const e = (sink.calls[0] as Extract<Call, { op: 'create' }>).event;
    expect(e.metadata.namespace).toBe('team-a');
    expect(e.metadata.annotations).toEqual({ a: 'b' });
    expect(e.message).toBe('Error syncing load balancer: quota');
    expect(e.source).toEqual({ component: 'service-controller', host: 'host-1' });
    expect(e.reportingInstance).toBe('host-1');
    expect(e.involvedObject.namespace).toBe('team-a');
  });

  it('dedups identical events: one create, then patches with increasing count', async () => {
    const { sink, b, r } = setup();
    for (let i = 0; i < 5; i++) r.eventf(nodeObj, 'Normal', 'Synced', 'Node %s synced', 'node-1');
    await b.shutdown();
    expect(sink.calls.map((c) => c.op)).toEqual(['create', 'patch', 'patch', 'patch', 'patch']);
    const patches = sink.calls.filter((c) => c.op === 'patch') as Array<Extract<Call, { op: 'patch' }>>;
    expect(patches.map((p) => p.patch.count)).toEqual([2, 3, 4, 5]);
    expect(patches[0]?.patch).toEqual({
      count: 2,
      lastTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      message: 'Node node-1 synced',
    });
    expect(sink.store.size).toBe(1);
    expect([...sink.store.values()][0]?.count).toBe(5);
  });

  it('creates the event again when the patched event is gone (404)', async () => {
    const { sink, b, r } = setup();
    r.event(nodeObj, 'Normal', 'Synced', 'ok');
    await vi.waitFor(() => expect(sink.store.size).toBe(1));
    sink.store.clear();
    r.event(nodeObj, 'Normal', 'Synced', 'ok');
    await b.shutdown();
    expect(sink.calls.map((c) => c.op)).toEqual(['create', 'patch', 'create']);
    const recreated = (sink.calls[2] as Extract<Call, { op: 'create' }>).event;
    expect(recreated.count).toBe(2);
    expect(recreated.metadata.resourceVersion).toBeUndefined();
  });

  it('retries transport errors and 5xx/429, not other API errors', async () => {
    const { sink, b, r } = setup();
    sink.failures.push(
      new Error('ECONNRESET'),
      new ApiException(503, 'unavailable', '{}', {}),
      new ApiException(429, 'slow down', '{}', {}),
    );
    r.event(nodeObj, 'Normal', 'A', 'a');
    await vi.waitFor(() => expect(sink.store.size).toBe(1));
    expect(sink.calls).toHaveLength(4);

    sink.failures.push(new ApiException(422, 'invalid', JSON.stringify({ reason: 'Invalid' }), {}));
    r.event(nodeObj, 'Normal', 'B', 'b');
    await b.shutdown();
    expect(sink.calls).toHaveLength(5);
    expect(sink.store.size).toBe(1);
    expect(lines.some((l) => l.includes('Server rejected event (will not retry!)'))).toBe(true);
  });

  it('gives up after maxTriesPerEvent attempts, sleeping the interval between them', async () => {
    vi.useFakeTimers();
    const sink = new FakeSink();
    const b = new EventBroadcaster({ retryIntervalMs: 10_000, random: () => 0.5 });
    b.startRecordingToSink(sink);
    for (let i = 0; i < 20; i++) sink.failures.push(new Error('down'));
    b.newRecorder('c').event(nodeObj, 'Warning', 'X', 'x');
    await vi.advanceTimersByTimeAsync(0);
    expect(sink.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(5_000); // first sleep: 10 s × random()
    expect(sink.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(sink.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(sink.calls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(10 * 10_000);
    expect(sink.calls).toHaveLength(12);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sink.calls).toHaveLength(12);
    expect(lines.some((l) => l.includes('retry limit exceeded'))).toBe(true);
    await b.shutdown();
  });

  it('AlreadyExists is dropped quietly', async () => {
    const { sink, b, r } = setup();
    sink.failures.push(new ApiException(409, 'exists', JSON.stringify({ reason: 'AlreadyExists' }), {}));
    r.event(nodeObj, 'Normal', 'A', 'a');
    await b.shutdown();
    expect(sink.calls).toHaveLength(1);
    expect(lines.some((l) => l.startsWith('E'))).toBe(false);
  });

  it('never blocks the caller: a full queue drops events with a counted log line', async () => {
    const sink = new FakeSink();
    sink.hang = true;
    const b = new EventBroadcaster({ queueLength: 5, retryIntervalMs: 1 });
    b.startRecordingToSink(sink);
    const r = b.newRecorder('c');
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) r.event(nodeObj, 'Normal', `R${i}`, 'm');
    expect(performance.now() - t0).toBeLessThan(50);
    expect(b.droppedEvents).toBe(15);
    const dropLines = lines.filter((l) => l.includes('Dropped events'));
    expect(dropLines.length).toBeGreaterThanOrEqual(1);
    expect(dropLines[0]).toContain('droppedTotal=1');
    // The sink is stuck on the first event; shutdown gives up after its timeout.
    const started = Date.now();
    await b.shutdown(50);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(b.droppedEvents).toBeGreaterThanOrEqual(19);
    expect(lines.some((l) => l.includes('reason="shutdown"'))).toBe(true);
  });

  it('discards events recorded after shutdown', async () => {
    const { sink, b, r } = setup();
    await b.shutdown();
    r.event(nodeObj, 'Normal', 'Late', 'late');
    await new Promise((res) => setTimeout(res, 5));
    expect(sink.calls).toHaveLength(0);
  });

  it('drops (and logs) events with an unknown type or an object without kind', async () => {
    const { sink, b, r } = setup();
    r.event(nodeObj, 'Critical' as 'Normal', 'X', 'x');
    r.event({ metadata: { name: 'plain' } }, 'Normal', 'X', 'x');
    await b.shutdown();
    expect(sink.calls).toHaveLength(0);
    expect(lines.some((l) => l.includes('Unsupported event type'))).toBe(true);
    expect(lines.some((l) => l.includes('Could not construct reference'))).toBe(true);
  });

  it('logs events with startStructuredLogging at the given verbosity', async () => {
    const b = new EventBroadcaster();
    b.startStructuredLogging(0);
    b.newRecorder('cloud-node-controller').event(nodeObj, 'Normal', 'Synced', 'Node synced successfully');
    await b.shutdown();
    const line = lines.find((l) => l.includes('Event occurred'));
    expect(line).toContain('object="node-1"');
    expect(line).toContain('reason="Synced"');
    expect(line).toContain('kind="Node"');

    lines.length = 0;
    const b2 = new EventBroadcaster();
    b2.startStructuredLogging(3);
    b2.newRecorder('x').event(nodeObj, 'Normal', 'Synced', 'quiet');
    await b2.shutdown();
    expect(lines.some((l) => l.includes('Event occurred'))).toBe(false);
  });

  it('feeds every watcher its own copy', async () => {
    const b = new EventBroadcaster();
    const got: CoreV1Event[][] = [[], []];
    b.startEventWatcher((e) => {
      e.message = 'changed';
      got[0]?.push(e);
    });
    b.startEventWatcher((e) => void got[1]?.push(e));
    b.newRecorder('c').event(nodeObj, 'Normal', 'R', 'original');
    await b.shutdown();
    expect(got[0]?.[0]?.message).toBe('changed');
    expect(got[1]?.[0]?.message).toBe('original');
  });
});

describe('getReference', () => {
  it('takes apiVersion/kind from the object, or from the client-node model class', () => {
    const n = new V1Node();
    n.metadata = { name: 'n1', uid: 'u' };
    expect(getReference(n)).toEqual({ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u' });
    expect(getReference({ apiVersion: 'v1', kind: 'Node', name: 'n2' })).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      name: 'n2',
    });
    expect(() => getReference({ metadata: { name: 'x' } })).toThrow(/apiVersion\/kind/);
    expect(() => getReference({ kind: 'Node' } as never)).toThrow(/metadata/);
  });
});

describe('coreV1EventSink', () => {
  it('creates with createNamespacedEvent and patches with the strategic-merge-patch content type', async () => {
    const created: unknown[] = [];
    const patched: Array<{
      req: unknown;
      opts: { middleware?: Array<{ pre(c: RequestContext): { toPromise(): Promise<RequestContext> } }> };
    }> = [];
    const api = {
      createNamespacedEvent: async (req: unknown) => {
        created.push(req);
        return { metadata: { name: 'e' } };
      },
      patchNamespacedEvent: async (req: unknown, opts: never) => {
        patched.push({ req, opts });
        return { metadata: { name: 'e' } };
      },
    } as unknown as CoreV1Api;
    const sink = coreV1EventSink(api);
    const e = { metadata: { name: 'n.1', namespace: 'default' }, involvedObject: {} } as CoreV1Event;
    await sink.create('default', e);
    await sink.patch('default', 'n.1', { count: 2 });
    expect(created).toEqual([{ namespace: 'default', body: e }]);
    expect(patched[0]?.req).toEqual({ namespace: 'default', name: 'n.1', body: { count: 2 } });
    const ctx = new RequestContext('https://example.invalid/api/v1/namespaces/default/events/n.1', HttpMethod.PATCH);
    for (const m of patched[0]?.opts.middleware ?? []) await m.pre(ctx).toPromise();
    expect(ctx.getHeaders()['Content-Type']).toBe('application/strategic-merge-patch+json');
  });
});

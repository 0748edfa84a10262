/**
 * CloudNodeController with an in-memory Node informer and a stub API client: the status-loop scenarios
 * (NODE-35..38), the PUT-with-conflict-retry init write, nil metadata in the status loop (decision 0100),
 * event handlers, node ownership and construction errors.
 */
import { FakeCloud, kubeletNode, MemoryInformer, RecordingEventRecorder, uninitializedTaint } from '@ccm-kit/testing';
import type { CoreV1Api, V1Node, V1Taint } from '@kubernetes/client-node';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { type CloudNodeConfig, CloudNodeController } from '../src/cloud-node/controller.js';
import { CLOUD_ADDRESSES, testLogger } from './cloud-node-harness.js';

interface StubCall {
  verb: string;
  name: string;
  body?: unknown;
}

function stubClient(opts: { replace?: (body: V1Node, attempt: number) => V1Node | Error } = {}) {
  const calls: StubCall[] = [];
  let replaces = 0;
  const client = {
    async replaceNode({ name, body }: { name: string; body: V1Node }) {
      calls.push({ verb: 'update', name, body: structuredClone(body) });
      const r = opts.replace?.(body, replaces++) ?? body;
      if (r instanceof Error) throw r;
      return r;
    },
    async patchNodeStatus({ name, body }: { name: string; body: unknown }) {
      calls.push({ verb: 'patch-status', name, body });
      return {};
    },
    async patchNode({ name, body }: { name: string; body: unknown }) {
      calls.push({ verb: 'patch', name, body });
      return {};
    },
    async readNode({ name }: { name: string }) {
      calls.push({ verb: 'get', name });
      return { metadata: { name, labels: {} } };
    },
  };
  return { client: client as unknown as CoreV1Api, calls };
}

/** A Node registered 3 s ago, with the taints and providerID given (none by default), at resourceVersion `rv`. */
function node(name: string, spec: { taints?: V1Taint[]; providerID?: string } = {}, rv = '1'): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    ...kubeletNode(name, {
      taints: spec.taints ?? [],
      ...(spec.providerID && { providerID: spec.providerID }),
      metadata: { uid: `uid-${name}`, resourceVersion: rv, creationTimestamp: new Date(Date.now() - 3000) },
    }),
  };
}

function controller(
  informer: MemoryInformer<V1Node>,
  cloud: FakeCloud,
  client: CoreV1Api,
  config: CloudNodeConfig = {},
) {
  const recorder = new RecordingEventRecorder();
  const c = new CloudNodeController({
    cloud,
    client,
    informers: { nodes: () => informer },
    recorder,
    logger: testLogger,
    config,
  });
  return { c, recorder };
}

describe('UpdateNodeStatus (TestUpdateNodeStatus)', () => {
  for (const [id, workers] of [
    ['NODE-35', 1],
    ['NODE-36', 5],
    ['NODE-37', 10],
    ['NODE-38', 30],
  ] as const) {
    it(`${id}: ${workers} worker(s): one node-addresses-by-provider-id call per node, ${workers} at a time`, async () => {
      const informer = new MemoryInformer<V1Node>();
      for (let i = 0; i < 100; i++) informer.set(node(`node${i}`));
      const cloud = new FakeCloud({ addresses: CLOUD_ADDRESSES, requestDelayMs: 10 });
      const { client, calls } = stubClient();
      const { c } = controller(informer, cloud, client, { concurrentNodeStatusUpdates: workers });
      await c.updateNodeStatus();
      const maxInFlight = cloud.callLog.maxConcurrency('nodeAddressesByProviderID');
      expect(cloud.calls).toHaveLength(100);
      expect(new Set(cloud.calls)).toEqual(new Set(['node-addresses-by-provider-id']));
      expect(maxInFlight).toBe(workers);
      expect(calls.filter((x) => x.verb === 'patch-status')).toHaveLength(100);
    });
  }

  it('concurrentNodeStatusUpdates 0 falls back to concurrentNodeSyncs', async () => {
    const informer = new MemoryInformer<V1Node>();
    for (let i = 0; i < 20; i++) informer.set(node(`n${i}`));
    const cloud = new FakeCloud({ addresses: CLOUD_ADDRESSES, requestDelayMs: 10 });
    const { client } = stubClient();
    const { c } = controller(informer, cloud, client, { concurrentNodeSyncs: 4, concurrentNodeStatusUpdates: 0 });
    await c.updateNodeStatus();
    const maxInFlight = cloud.callLog.maxConcurrency('nodeAddressesByProviderID');
    expect(maxInFlight).toBe(4);
  });

  it('--concurrent-node-syncs=0 with no status workers refreshes no node (ParallelizeUntil with 0 workers)', async () => {
    const informer = new MemoryInformer<V1Node>();
    for (let i = 0; i < 3; i++) informer.set(node(`n${i}`));
    const cloud = new FakeCloud({ addresses: CLOUD_ADDRESSES });
    const { client, calls } = stubClient();
    const { c } = controller(informer, cloud, client, { concurrentNodeSyncs: 0, concurrentNodeStatusUpdates: 0 });
    await c.updateNodeStatus();
    expect(cloud.calls).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('skips a node whose InstancesV2 metadata is nil instead of crashing (decision 0100)', async () => {
    const informer = new MemoryInformer<V1Node>();
    informer.set(node('nil', { providerID: 'fake://nil' }));
    informer.set(node('ok', { providerID: 'fake://ok' }));
    const cloud = new FakeCloud({
      enableInstancesV2: true,
      overrideInstanceMetadata: (n) =>
        n.metadata?.name === 'nil' ? undefined : { providerID: 'fake://ok', nodeAddresses: CLOUD_ADDRESSES },
    });
    const { client, calls } = stubClient();
    const { c } = controller(informer, cloud, client);
    await expect(c.updateNodeStatus()).resolves.toBeUndefined();
    expect(calls.map((x) => `${x.verb} ${x.name}`)).toEqual(['patch-status ok']);
  });

  it('cloud errors and invalid provided node IPs skip the node; labels are never touched', async () => {
    const informer = new MemoryInformer<V1Node>();
    const bad = node('badip');
    bad.metadata!.annotations = { 'alpha.kubernetes.io/provided-node-ip': '10.9.9.9' };
    informer.set(bad);
    informer.set(node('tainted', { taints: [uninitializedTaint()] }));
    const cloud = new FakeCloud({ addresses: CLOUD_ADDRESSES });
    const { client, calls } = stubClient();
    const { c } = controller(informer, cloud, client);
    await c.updateNodeStatus();
    expect(calls).toEqual([]);
    expect(cloud.calls).toEqual(['node-addresses-by-provider-id']);
    cloud.err = new Error('cloud down');
    await expect(c.updateNodeStatus()).resolves.toBeUndefined();
  });

  it('writes the status with a replace directive, never clears addresses', async () => {
    const informer = new MemoryInformer<V1Node>();
    const n = node('n1');
    n.status = { addresses: [{ type: 'Hostname', address: 'kubelet-name' }] };
    informer.set(n);
    const cloud = new FakeCloud({ addresses: [{ type: 'InternalIP', address: '10.0.0.9' }] });
    const { client, calls } = stubClient();
    const { c } = controller(informer, cloud, client);
    await c.updateNodeStatus();
    expect(calls).toEqual([
      {
        verb: 'patch-status',
        name: 'n1',
        body: {
          status: {
            addresses: [
              { type: 'InternalIP', address: '10.0.0.9' },
              { type: 'Hostname', address: 'kubelet-name' },
              { $patch: 'replace' },
            ],
          },
        },
      },
    ]);
    cloud.addresses = [];
    calls.length = 0;
    await c.updateNodeStatus();
    expect(calls).toEqual([]);
  });

  it('a node without addresses gets the plain list, no replace directive (as PatchNodeStatus)', async () => {
    const informer = new MemoryInformer<V1Node>();
    informer.set(node('n1'));
    const cloud = new FakeCloud({ addresses: [{ type: 'InternalIP', address: '10.0.0.9' }] });
    const { client, calls } = stubClient();
    const { c } = controller(informer, cloud, client);
    await c.updateNodeStatus();
    expect(calls).toEqual([
      {
        verb: 'patch-status',
        name: 'n1',
        body: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.9' }] } },
      },
    ]);
  });
});

describe('initialization write', () => {
  it('is a full PUT retried on conflict, re-reading the lister each time, then the status patch', async () => {
    const informer = new MemoryInformer<V1Node>();
    informer.set(node('n1', { taints: [uninitializedTaint(), { key: 'keep', effect: 'NoSchedule' }] }));
    const cloud = new FakeCloud({ extID: { n1: '42' }, addresses: CLOUD_ADDRESSES });
    const { client, calls } = stubClient({
      replace: (_body, attempt) => {
        if (attempt > 0) return _body;
        // Someone else updated the node meanwhile: the lister now has resourceVersion 2.
        const newer = node('n1', { taints: [uninitializedTaint(), { key: 'keep', effect: 'NoSchedule' }] }, '2');
        newer.metadata!.labels = { added: 'meanwhile' };
        informer.set(newer);
        return Object.assign(new Error('Conflict'), { code: 409 });
      },
    });
    const { c, recorder } = controller(informer, cloud, client);
    await c.syncNode('n1');
    const updates = calls.filter((x) => x.verb === 'update');
    expect(updates).toHaveLength(2);
    const [first, second] = updates.map((u) => u.body as V1Node);
    expect(first?.metadata?.resourceVersion).toBe('1');
    expect(second?.metadata?.resourceVersion).toBe('2');
    expect(second?.metadata?.labels).toEqual({ added: 'meanwhile' });
    expect(second?.spec?.providerID).toBe('fake://42');
    expect(second?.spec?.taints).toEqual([{ key: 'keep', effect: 'NoSchedule' }]);
    expect(second).toMatchObject({ apiVersion: 'v1', kind: 'Node' });
    expect(calls.map((x) => x.verb)).toEqual(['update', 'update', 'patch-status']);
    expect(recorder.events.map((e) => [e.type, e.reason, e.message])).toEqual([
      ['Normal', 'Synced', 'Node synced successfully'],
    ]);
    // As GetReference on the informer copy taken before the update: its resourceVersion is included.
    expect(recorder.events[0]?.object).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      name: 'n1',
      uid: 'uid-n1',
      resourceVersion: '1',
    });
  });

  it('stops retrying conflicts once the controller is stopped (no retry loop left running after abort)', async () => {
    const informer = new MemoryInformer<V1Node>();
    informer.set(node('n1', { taints: [uninitializedTaint()] }));
    const cloud = new FakeCloud({ extID: { n1: '42' } });
    const abort = new AbortController();
    const { client, calls } = stubClient({
      replace: () => {
        abort.abort();
        return Object.assign(new Error('Conflict'), { code: 409 });
      },
    });
    const { c, recorder } = controller(informer, cloud, client);
    await expect(c.syncNode('n1', abort.signal)).rejects.toThrow('Conflict');
    expect(calls.map((x) => x.verb)).toEqual(['update']);
    expect(recorder.events).toEqual([]);
  });

  it('a non-conflict error fails the sync at once (the worker requeues it)', async () => {
    const informer = new MemoryInformer<V1Node>();
    informer.set(node('n1', { taints: [uninitializedTaint()] }));
    const cloud = new FakeCloud({ extID: { n1: '42' } });
    const { client, calls } = stubClient({
      replace: () => Object.assign(new Error('Forbidden'), { code: 403 }),
    });
    const { c, recorder } = controller(informer, cloud, client);
    await expect(c.syncNode('n1')).rejects.toThrow('Forbidden');
    expect(calls.map((x) => x.verb)).toEqual(['update']);
    expect(recorder.events).toEqual([]);
  });

  it('wraps metadata errors with the upstream message', async () => {
    const informer = new MemoryInformer<V1Node>();
    informer.set(node('n1', { taints: [uninitializedTaint()] }));
    const cloud = new FakeCloud({ enableInstancesV2: true, metadataErr: new Error('metadata error') });
    const { client } = stubClient();
    const { c } = controller(informer, cloud, client);
    await expect(c.syncNode('n1')).rejects.toThrow('failed to get instance metadata for node n1: metadata error');
  });

  it('a node missing from the lister is ignored', async () => {
    const { client, calls } = stubClient();
    const { c } = controller(new MemoryInformer<V1Node>(), new FakeCloud(), client);
    await expect(c.syncNode('ghost')).resolves.toBeUndefined();
    expect(calls).toEqual([]);
  });
});

describe('run', () => {
  it('adds and updates enqueue the node; workers initialize it; stops on abort', async () => {
    const informer = new MemoryInformer<V1Node>();
    const cloud = new FakeCloud({ extID: { n1: '7' }, addresses: CLOUD_ADDRESSES });
    const { client, calls } = stubClient();
    const { c } = controller(informer, cloud, client, { nodeStatusUpdateFrequencyMs: 60_000 });
    const abort = new AbortController();
    const done = c.run(abort.signal);
    informer.add(node('n1', { taints: [uninitializedTaint()] }));
    await eventuallyValue(() => calls.some((x) => x.verb === 'update'), { timeoutMs: 5_000, intervalMs: 10 });
    expect(calls.filter((x) => x.verb === 'update')).toHaveLength(1);
    expect(informer.handlers).toHaveLength(1);
    abort.abort();
    await done;
    expect(informer.handlers).toHaveLength(0);
  });

  it('nodeOwnership: rejected nodes are never queued, initialized or refreshed', async () => {
    const informer = new MemoryInformer<V1Node>();
    const cloud = new FakeCloud({ extID: { foreign: '1' }, addresses: CLOUD_ADDRESSES });
    const { client, calls } = stubClient();
    const { c } = controller(informer, cloud, client, {
      nodeOwnership: (n) => !n.metadata?.name?.startsWith('foreign'),
      nodeStatusUpdateFrequencyMs: 60_000,
    });
    informer.add(node('foreign', { taints: [uninitializedTaint()] }));
    informer.set(node('foreign-ready'));
    informer.set(node('mine'));
    await c.syncNode('foreign');
    await c.updateNodeStatus();
    expect(calls.map((x) => `${x.verb} ${x.name}`)).toEqual(['patch-status mine']);
    expect(cloud.calls).toEqual(['node-addresses-by-provider-id']);
  });
});

describe('construction', () => {
  it('fails without an instances facet', () => {
    const { client } = stubClient();
    expect(() => controller(new MemoryInformer<V1Node>(), new FakeCloud({ disableInstances: true }), client)).toThrow(
      'cloud provider does not support instances',
    );
  });
  it('rejects bad periods and worker counts, naming the field', () => {
    const { client } = stubClient();
    expect(() =>
      controller(new MemoryInformer<V1Node>(), new FakeCloud(), client, { concurrentNodeSyncs: -1 }),
    ).toThrow(/concurrentNodeSyncs/);
    expect(() =>
      controller(new MemoryInformer<V1Node>(), new FakeCloud(), client, { nodeStatusUpdateFrequencyMs: 0 }),
    ).toThrow(/nodeStatusUpdateFrequencyMs/);
  });
});

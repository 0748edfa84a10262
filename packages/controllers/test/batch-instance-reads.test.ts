/**
 * Batch instance reads (`InstancesV2.listInstanceStates`, decision 0103): the listing reader, and the
 * cloud-node status pass and the cloud-node-lifecycle monitor using it. Same writes as per Node; a Node not
 * listed — complete listing or failed page — is asked per Node, and only that answer can delete it.
 */
import type { InstanceStatePage, InstancesV2 } from '@ccm-kit/cloud-provider';
import { type CloudLane, currentCloudLane } from '@ccm-kit/runtime/budget';
import { FakeCloud, MemoryInformer, RecordingEventRecorder } from '@ccm-kit/testing';
import type { CoreV1Api, V1Node, V1NodeAddress } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { CloudNodeController } from '../src/cloud-node/controller.js';
import { CloudNodeLifecycleController } from '../src/node-lifecycle/controller.js';
import { listingIsCheaper, readInstanceListing } from '../src/shared/instance-listing.js';
import { testLogger } from './cloud-node-harness.js';

const addresses = (ip: string): V1NodeAddress[] => [{ type: 'InternalIP', address: ip }];

/** A cloud with machines fake://m0 … fake://m<n-1>, `pageSize` per listed page. */
function cloudWith(n: number, pageSize: number): FakeCloud {
  const cloud = new FakeCloud({ enableInstancesV2: true, instanceStatePageSize: pageSize });
  for (let i = 0; i < n; i++) cloud.setInstance(`fake://m${i}`, { addresses: addresses(`10.0.0.${i + 1}`) });
  return cloud;
}

function pages(
  ...list: (InstanceStatePage | Error)[]
): InstancesV2 & Required<Pick<InstancesV2, 'listInstanceStates'>> {
  const tokens: (string | undefined)[] = [];
  return {
    tokens,
    instanceExists: async () => true,
    instanceShutdown: async () => false,
    instanceMetadata: async () => undefined,
    async listInstanceStates(token: string | undefined) {
      tokens.push(token);
      const page = list[token === undefined ? 0 : Number(token)];
      if (page instanceof Error) throw page;
      return page!;
    },
  } as never;
}

const state = (id: string, shutdown = false) => ({ providerID: id, metadata: { providerID: id }, shutdown });

describe('readInstanceListing', () => {
  it('reads every page and keeps only the wanted providerIDs', async () => {
    const listing = await readInstanceListing(
      pages({ instances: [state('a'), state('x')], nextPageToken: '1' }, { instances: [state('b')] }),
      new Set(['a', 'b', 'c']),
    );
    expect(listing.end).toBe('last-page');
    expect(listing.pages).toBe(2);
    expect([...listing.found.keys()]).toEqual(['a', 'b']);
  });

  it('stops once every wanted Node is found', async () => {
    const source = pages({ instances: [state('a')], nextPageToken: '1' }, new Error('must not be read'));
    const listing = await readInstanceListing(source, new Set(['a']));
    expect(listing).toMatchObject({ end: 'all-found', pages: 1 });
  });

  it('a failing page ends the listing with what the earlier pages found', async () => {
    const listing = await readInstanceListing(
      pages({ instances: [state('a')], nextPageToken: '1' }, new Error('503 from the cloud')),
      new Set(['a', 'b']),
    );
    expect(listing.end).toBe('failed');
    expect((listing.error as Error).message).toBe('503 from the cloud');
    expect([...listing.found.keys()]).toEqual(['a']);
  });

  it('a malformed page, a repeated token or an abort fails the listing; malformed items are skipped', async () => {
    const bad = await readInstanceListing(pages({ items: [] } as never), new Set(['a']));
    expect(bad.end).toBe('failed');
    expect(String(bad.error)).toMatch(/listInstanceStates returned .* not a page/);

    const loop = await readInstanceListing(
      pages({ instances: [], nextPageToken: '1' }, { instances: [], nextPageToken: '1' }),
      new Set(['a']),
    );
    expect(loop.end).toBe('failed');
    expect(String(loop.error)).toMatch(/page token "1" a second time/);

    const items = await readInstanceListing(
      pages({ instances: [state('a'), { providerID: 'b', metadata: {}, shutdown: 'no' }, null] as never }),
      new Set(['a', 'b']),
    );
    expect(items).toMatchObject({ end: 'last-page', malformed: 2 });
    expect([...items.found.keys()]).toEqual(['a']);

    const aborted = await readInstanceListing(pages({ instances: [] }), new Set(['a']), AbortSignal.abort());
    expect(aborted).toMatchObject({ end: 'failed', pages: 0 });
  });
});

describe('listingIsCheaper', () => {
  it('lists when the last listing took fewer pages than the per-Node calls, and first of all', () => {
    expect(listingIsCheaper(0, 1, undefined)).toBe(false);
    expect(listingIsCheaper(1, 1, undefined)).toBe(true);
    expect(listingIsCheaper(10, 1, 2)).toBe(true);
    expect(listingIsCheaper(2, 1, 2)).toBe(false);
    expect(listingIsCheaper(1, 2, 10)).toBe(false);
  });
});

describe('FakeCloud batch read', () => {
  it('is absent unless instanceStatePageSize is set', () => {
    expect(new FakeCloud({ enableInstancesV2: true }).instancesV2()?.listInstanceStates).toBeUndefined();
    expect(() => new FakeCloud({ instanceStatePageSize: 0 })).toThrow(/instanceStatePageSize/);
  });
});

// ------------------------------------------------------------------------------------------------ status pass

function statusClient() {
  const patches: { name: string; body: unknown }[] = [];
  const client = {
    async patchNodeStatus({ name, body }: { name: string; body: unknown }) {
      patches.push({ name, body });
      return {};
    },
  } as unknown as CoreV1Api;
  return { client, patches };
}

function initialized(name: string, providerID?: string): V1Node {
  return { metadata: { name, uid: `uid-${name}` }, spec: providerID ? { providerID } : {}, status: {} };
}

function statusController(nodes: V1Node[], cloud: FakeCloud) {
  const { client, patches } = statusClient();
  const c = new CloudNodeController({
    cloud,
    client: client as never,
    informers: { nodes: () => new MemoryInformer(nodes) as never },
    recorder: new RecordingEventRecorder(),
    logger: testLogger,
    config: {},
  });
  return { c, patches };
}

describe('cloud-node status pass with batch reads', () => {
  const nodes = () => [0, 1, 2, 3, 4].map((i) => initialized(`n${i}`, `fake://m${i}`));

  it('takes every listed Node from the listing (2 pages for 5 Nodes, no per-Node call) with the same patches', async () => {
    const batch = cloudWith(5, 3);
    const { c, patches } = statusController(nodes(), batch);
    await c.updateNodeStatus();
    expect(batch.calls).toEqual(['list-instance-states', 'list-instance-states']);

    const perNode = cloudWith(5, 3);
    perNode.instanceStatePageSize = undefined;
    const upstream = statusController(nodes(), perNode);
    await upstream.c.updateNodeStatus();
    expect(perNode.calls).toEqual(Array(5).fill('instance-metadata-by-provider-id'));
    expect(patches).toHaveLength(5);
    expect(new Set(patches.map((p) => JSON.stringify(p)))).toEqual(
      new Set(upstream.patches.map((p) => JSON.stringify(p))),
    );
  });

  it('a failing page: the Nodes it would have listed are asked per Node', async () => {
    const cloud = cloudWith(5, 2);
    cloud.faults.injectError('listInstanceStates', { subject: 'page 2' });
    const { c, patches } = statusController(nodes(), cloud);
    await c.updateNodeStatus();
    // Page 1 listed m0 and m1; m2..m4 per Node.
    expect(cloud.calls).toEqual(['list-instance-states', ...Array(3).fill('instance-metadata-by-provider-id')]);
    expect(
      cloud.callLog
        .entries()
        .filter((e) => e.method === 'instanceMetadata')
        .map((e) => e.subject),
    ).toEqual(['n2', 'n3', 'n4']);
    expect(patches.map((p) => p.name).sort()).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
  });

  it('a Node without providerID or not listed is asked per Node', async () => {
    const cloud = cloudWith(1, 10);
    cloud.setInstance('n-noid', { providerID: 'fake://other', addresses: addresses('10.1.0.1'), exists: true });
    cloud.instanceStatePageSize = 10;
    const list = [initialized('n0', 'fake://m0'), initialized('n-noid'), initialized('n-unlisted', 'fake://gone')];
    const { c, patches } = statusController(list, cloud);
    await c.updateNodeStatus();
    expect(
      cloud.callLog
        .entries()
        .filter((e) => e.method === 'instanceMetadata')
        .map((e) => e.subject)
        .sort(),
    ).toEqual(['n-noid', 'n-unlisted']);
    expect(patches.map((p) => p.name).sort()).toEqual(['n-noid', 'n0']);
  });
});

// ---------------------------------------------------------------------------------------------- lifecycle pass

function notReady(name: string, providerID: string): V1Node {
  return {
    metadata: { name, uid: `uid-${name}` },
    spec: { providerID },
    status: { conditions: [{ type: 'Ready', status: 'Unknown' }] },
  };
}

function lifecycle(nodes: V1Node[], cloud: FakeCloud) {
  const writes: string[] = [];
  const client = {
    async deleteNode({ name }: { name: string }) {
      writes.push(`delete ${name}`);
      return {};
    },
    async readNode({ name }: { name: string }) {
      return { metadata: { name, resourceVersion: '1' }, spec: { taints: [] } };
    },
    async patchNode({ name }: { name: string }) {
      writes.push(`taint ${name}`);
      return {};
    },
  } as unknown as CoreV1Api;
  const recorder = new RecordingEventRecorder();
  const informer = new MemoryInformer(nodes);
  const c = new CloudNodeLifecycleController({
    informers: { nodes: () => informer },
    client,
    cloud,
    recorder,
    logger: testLogger,
    config: {},
  });
  return { c, writes, recorder, informer };
}

const perNodeCalls = (cloud: FakeCloud) =>
  cloud.callLog
    .entries()
    .filter((e) => e.method === 'instanceExists' || e.method === 'instanceShutdown')
    .map((e) => `${e.method} ${e.subject}`);

describe('cloud-node-lifecycle monitor with batch reads', () => {
  it('a listed Node exists; a listed shut-down Node is tainted; no per-Node call', async () => {
    const cloud = cloudWith(3, 10);
    cloud.setInstance('fake://m1', { shutdown: true });
    const { c, writes } = lifecycle(
      [notReady('n0', 'fake://m0'), notReady('n1', 'fake://m1'), notReady('n2', 'fake://m2')],
      cloud,
    );
    await c.monitorNodes();
    expect(cloud.calls).toEqual(['list-instance-states']);
    expect(writes).toEqual(['taint n1']);
  });

  it('a Node missing from a complete listing is deleted only once instanceExists says so', async () => {
    const cloud = cloudWith(2, 10);
    // m5 is gone (per Node: false); m6 is not listed but the per-Node call says it exists and is shut down.
    cloud.setInstance('fake://m5', { exists: false });
    const { c, writes, recorder } = lifecycle(
      [notReady('n0', 'fake://m0'), notReady('n5', 'fake://m5'), notReady('n6', 'fake://m6')],
      cloud,
    );
    cloud.existsByProviderID = true;
    cloud.nodeShutdown = true;
    await c.monitorNodes();
    expect(perNodeCalls(cloud)).toEqual(['instanceExists n5', 'instanceExists n6', 'instanceShutdown n6']);
    expect(writes).toEqual(['delete n5', 'taint n6']);
    expect(recorder.events.map((e) => `${e.reason} ${(e.object as { name?: string }).name}`)).toEqual([
      'DeletingNode n5',
    ]);
  });

  it('a failing page never deletes or taints: the Nodes not read are asked per Node', async () => {
    const cloud = cloudWith(4, 2);
    cloud.faults.injectError('listInstanceStates', { subject: 'page 2' });
    // The cloud cannot answer per Node either: nothing may be deleted or tainted for n2, n3.
    cloud.faults.injectError(['instanceExists', 'instanceShutdown'], { error: new Error('cloud down') });
    const nodes = [0, 1, 2, 3].map((i) => notReady(`n${i}`, `fake://m${i}`));
    const { c, writes, recorder } = lifecycle(nodes, cloud);
    await c.monitorNodes();
    expect(perNodeCalls(cloud)).toEqual(['instanceExists n2', 'instanceExists n3']);
    expect(writes).toEqual([]);
    expect(recorder.events).toEqual([]);
  });

  it('a listing that fails on its first page falls back to per Node for every Node, as upstream', async () => {
    const cloud = cloudWith(2, 10);
    cloud.setInstance('fake://m1', { exists: false });
    cloud.faults.injectError('listInstanceStates', { error: new Error('429') });
    const { c, writes } = lifecycle([notReady('n0', 'fake://m0'), notReady('n1', 'fake://m1')], cloud);
    await c.monitorNodes();
    expect(perNodeCalls(cloud)).toEqual(['instanceExists n0', 'instanceShutdown n0', 'instanceExists n1']);
    expect(writes).toEqual(['delete n1']);
  });

  it('Ready Nodes need no cloud answer, so nothing is listed', async () => {
    const cloud = cloudWith(1, 10);
    const ready: V1Node = {
      ...notReady('n0', 'fake://m0'),
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const { c } = lifecycle([ready], cloud);
    await c.monitorNodes();
    expect(cloud.calls).toEqual([]);
  });

  it('asks per Node when that is cheaper than the pages the last listing took', async () => {
    const cloud = cloudWith(30, 10);
    const all = Array.from({ length: 30 }, (_, i) => notReady(`n${i}`, `fake://m${i}`));
    const many = lifecycle(all, cloud);
    await many.c.monitorNodes();
    expect(cloud.calls).toEqual(Array(3).fill('list-instance-states'));
    // The same controller, now one NotReady Node: 2 per-Node calls are cheaper than 3 pages.
    for (const n of all.slice(1)) many.informer.remove(n);
    cloud.clearCalls();
    await many.c.monitorNodes();
    expect(cloud.calls).toEqual(['instance-exists', 'instance-shutdown']);
  });
});

describe('cloud lane', () => {
  it('both passes make their cloud calls, listing and per Node, in the periodic lane', async () => {
    const lanes: (CloudLane | undefined)[] = [];
    const cloud = cloudWith(1, 10);
    cloud.faults.injectError('listInstanceStates', {
      error: () => {
        lanes.push(currentCloudLane());
        return new Error('page fails');
      },
    });
    cloud.overrideInstanceMetadata = () => {
      lanes.push(currentCloudLane());
      return undefined;
    };
    const node = initialized('n0', 'fake://m0');
    await statusController([node], cloud).c.updateNodeStatus();
    const monitor = lifecycle([notReady('n0', 'fake://m0')], cloud);
    const exists = cloud.instanceExists.bind(cloud);
    cloud.instanceExists = (n, signal) => {
      lanes.push(currentCloudLane());
      return exists(n, signal);
    };
    await monitor.c.monitorNodes();
    expect(lanes).toEqual(['periodic', 'periodic', 'periodic', 'periodic']);
  });
});

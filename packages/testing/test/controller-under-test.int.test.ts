/**
 * The controller fixture against a real API server, as docs/testing.md shows it to vendors: the cloud-node
 * controller started through its descriptor, the two waits, a fault for one subject, a controller that
 * chooses not to start, and a second controller on the same TestCluster.
 */
import { cloudNodeController, type ControllerDescriptor } from '@ccm-kit/controllers';
import { FakeCloud, isGone, kubeletNode } from '@ccm-kit/testing';
import { eventually, eventuallyValue, startControllerUnderTest, useControllerUnderTest } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';

const UNINITIALIZED = { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };
const cloud = new FakeCloud({ enableInstancesV2: true });
const cut = useControllerUnderTest(() => ({ cloud, controller: cloudNodeController }));

describe('TestCluster.createNodeAndWait', () => {
  it('creates the Node, returns once the Node informer has it, and waitForNode times out naming the Node', async () => {
    const cluster = cut().cluster;
    const name = cluster.name('waited');
    cloud.setInstance(name, { providerID: `fake://${name}` }); // so the running controller initializes it quietly
    const created = await cluster.createNodeAndWait(kubeletNode(name));
    expect(cluster.informers.nodes().lister.get(name)?.metadata?.uid).toBe(created.metadata?.uid);
    const rv = BigInt(created.metadata!.resourceVersion!);
    await cluster.waitForNode(name, String(rv)); // already in the cache
    await expect(cluster.waitForNode(name, String(rv + 1_000_000n), 200)).rejects.toThrow(
      `the Node informer did not see ${name}@${rv + 1_000_000n} within 200 ms`,
    );
  });
});

describe('startControllerUnderTest', () => {
  it('runs the controller through init(ctx) on synced informers; eventually and eventuallyValue wait for it', async () => {
    expect(cut().result.started).toBe(true);
    const { core } = cut().cluster;
    const name = cut().cluster.name('node');
    cut().cluster.deleteNodeLater(name);
    cloud.setInstance(name, { providerID: `fake://${name}`, zone: 'zone-a', region: 'region-1' });
    await core.createNode({ body: { metadata: { name }, spec: { taints: [UNINITIALIZED] } } });
    const node = await eventuallyValue(async () => {
      const n = await core.readNode({ name });
      return n.spec?.providerID ? n : undefined;
    }, 'the providerID');
    expect(node.spec?.providerID).toBe(`fake://${name}`);
    await eventually(async () =>
      expect((await core.readNode({ name })).metadata?.labels?.['topology.kubernetes.io/zone']).toBe('zone-a'),
    );
  });

  it('a fault for one subject fails only that Node, and the controller retries it', async () => {
    const { core } = cut().cluster;
    const [flaky, fine] = [cut().cluster.name('flaky'), cut().cluster.name('fine')];
    for (const name of [flaky, fine]) {
      cut().cluster.deleteNodeLater(name);
      cloud.setInstance(name, { providerID: `fake://${name}` });
    }
    cloud.faults.injectError('instanceMetadata', { subject: flaky, times: 2 });
    try {
      for (const name of [flaky, fine])
        await core.createNode({ body: { metadata: { name }, spec: { taints: [UNINITIALIZED] } } });
      for (const name of [flaky, fine])
        await eventuallyValue(async () => (await core.readNode({ name })).spec?.providerID, `${name} initialized`);
      const failed = cloud.callLog.entries('instanceMetadata').filter((e) => e.outcome === 'error');
      expect(failed.map((e) => e.subject)).toEqual([flaky, flaky]);
    } finally {
      cloud.faults.clear();
    }
  });

  it('reports a controller that chooses not to start, and stops a second controller without the cluster', async () => {
    const skip: ControllerDescriptor = {
      name: 'skipping-controller',
      clientName: 'skipping',
      init: async () => ({ started: false, reason: 'no facet' }),
    };
    const skipped = await startControllerUnderTest({ cloud, controller: skip, cluster: cut().cluster });
    expect(skipped.result).toEqual({ started: false, reason: 'no facet' });
    await skipped.stop();

    let stopped = false;
    const vendor: ControllerDescriptor = {
      name: 'vendor-controller',
      clientName: 'vendor',
      async init(ctx) {
        ctx.informers.services(); // a new informer: started and synced by the fixture
        return {
          started: true,
          done: new Promise<void>((r) =>
            ctx.signal.addEventListener('abort', () => {
              stopped = true;
              r();
            }),
          ),
        };
      },
    };
    const second = await startControllerUnderTest({ cloud, controller: vendor, cluster: cut().cluster });
    expect(cut().cluster.informers.services().hasSynced()).toBe(true);
    await second.stop();
    expect(stopped).toBe(true);
    // The shared cluster is still usable after the second controller stopped.
    expect(await isGone(cut().cluster.core.readNode({ name: cut().cluster.name('absent') }))).toBe(true);
  });
});

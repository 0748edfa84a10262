/**
 * CloudNodeLifecycleController with an in-memory lister and a stub API client: construction errors in
 * upstream's order, node ownership, one Node at a time, and robustness of a pass.
 */
import { FakeCloud, MemoryInformer, memoryInformers, RecordingEventRecorder } from '@ccm-kit/testing';
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { CloudNodeLifecycleController } from '../src/node-lifecycle/controller.js';
import { testLogger } from './cloud-node-harness.js';

function notReady(name: string): V1Node {
  return {
    metadata: { name, uid: `uid-${name}` },
    spec: { providerID: `fake://${name}` },
    status: { conditions: [{ type: 'Ready', status: 'False' }] },
  };
}

function setup(nodes: V1Node[], cloud: FakeCloud, nodeOwnership?: (n: V1Node) => boolean) {
  const calls: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client = {
    async deleteNode({ name }: { name: string }) {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      calls.push(`delete ${name}`);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return {};
    },
  } as unknown as CoreV1Api;
  const recorder = new RecordingEventRecorder();
  const c = new CloudNodeLifecycleController({
    informers: { nodes: () => new MemoryInformer(nodes) },
    client,
    cloud,
    recorder,
    logger: testLogger,
    config: { nodeOwnership },
  });
  return { c, calls, recorder, maxInFlight: () => maxInFlight };
}

describe('CloudNodeLifecycleController', () => {
  it('fails construction in upstream order', () => {
    const informers = memoryInformers();
    const recorder = new RecordingEventRecorder();
    expect(
      () =>
        new CloudNodeLifecycleController({
          informers,
          client: undefined as never,
          cloud: undefined as never,
          recorder,
          config: {},
        }),
    ).toThrow('kubernetes client is nil');
    expect(
      () =>
        new CloudNodeLifecycleController({
          informers,
          client: {} as never,
          cloud: undefined as never,
          recorder,
          config: {},
        }),
    ).toThrow('no cloud provider provided');
    expect(
      () =>
        new CloudNodeLifecycleController({
          informers,
          client: {} as never,
          cloud: new FakeCloud({ disableInstances: true }),
          recorder,
          config: {},
        }),
    ).toThrow('cloud provider does not support instances');
    expect(
      () =>
        new CloudNodeLifecycleController({
          informers,
          client: {} as never,
          cloud: new FakeCloud(),
          recorder,
          config: { nodeMonitorPeriodMs: -5 },
        }),
    ).toThrow(/nodeMonitorPeriodMs/);
    // Decision 0101: zero would be upstream's busy loop against the cloud.
    expect(
      () =>
        new CloudNodeLifecycleController({
          informers,
          client: {} as never,
          cloud: new FakeCloud(),
          recorder,
          config: { nodeMonitorPeriodMs: 0 },
        }),
    ).toThrow('CloudNodeLifecycleController: nodeMonitorPeriodMs must be > 0, got 0');
  });

  it('deletes nodes one after another, with the DeletingNode event on a v1 reference', async () => {
    const { c, calls, recorder, maxInFlight } = setup([notReady('a'), notReady('b'), notReady('c')], new FakeCloud());
    await c.monitorNodes();
    expect(calls).toEqual(['delete a', 'delete b', 'delete c']);
    expect(maxInFlight()).toBe(1);
    expect(recorder.events[0]).toEqual({
      object: { apiVersion: 'v1', kind: 'Node', name: 'a', uid: 'uid-a' },
      type: 'Normal',
      reason: 'DeletingNode',
      message: 'Deleting node a because it does not exist in the cloud provider',
    });
  });

  it('nodeOwnership: rejected nodes are never checked or deleted', async () => {
    const cloud = new FakeCloud();
    const { c, calls } = setup([notReady('theirs'), notReady('mine')], cloud, (n) => n.metadata?.name === 'mine');
    await c.monitorNodes();
    expect(calls).toEqual(['delete mine']);
    expect(cloud.calls).toEqual(['instance-exists-by-provider-id']);
  });

  it('nodeOwnership throwing for one node skips that node only, not the rest of the pass', async () => {
    const { c, calls } = setup([notReady('odd'), notReady('mine')], new FakeCloud(), (n) => {
      if (n.metadata?.name === 'odd') throw new Error('cannot decide');
      return true;
    });
    await expect(c.monitorNodes()).resolves.toBeUndefined();
    expect(calls).toEqual(['delete mine']);
  });

  it('a cloud error on one node does not stop the pass or delete it', async () => {
    const cloud = new FakeCloud();
    cloud.setInstance('fake://ok', { exists: false });
    const nodes = [notReady('broken'), notReady('ok')];
    cloud.errByProviderID = new Error('boom');
    const { c, calls } = setup(nodes, cloud);
    await c.monitorNodes();
    expect(calls).toEqual(['delete ok']);
  });

  it('a provider answering undefined for existence never gets the node deleted (decision 0102)', async () => {
    const cloud = new FakeCloud();
    cloud.instanceExistsByProviderID = async () => undefined as unknown as boolean;
    const { c, calls, recorder } = setup([notReady('a')], cloud);
    await c.monitorNodes();
    expect(calls).toEqual([]);
    expect(recorder.events).toEqual([]);
  });

  it('stops the pass when the signal aborts', async () => {
    const abort = new AbortController();
    abort.abort();
    const { c, calls } = setup([notReady('a')], new FakeCloud());
    await c.monitorNodes(abort.signal);
    expect(calls).toEqual([]);
  });
});

describe('CloudNodeLifecycleController taint writes', () => {
  function taintClient(onPatch: () => void) {
    const calls: string[] = [];
    const client = {
      async readNode({ name }: { name: string }) {
        calls.push(`get ${name}`);
        return { metadata: { name, resourceVersion: '7' }, spec: { taints: [] } };
      },
      async patchNode({ name }: { name: string }) {
        calls.push(`patch ${name}`);
        onPatch();
        throw Object.assign(new Error('Conflict'), { code: 409 });
      },
    } as unknown as CoreV1Api;
    return { client, calls };
  }

  it('stops retrying a conflicting shutdown-taint write once the controller is stopped', async () => {
    const abort = new AbortController();
    const { client, calls } = taintClient(() => abort.abort());
    const cloud = new FakeCloud({ existsByProviderID: true, nodeShutdown: true });
    const nodes = new MemoryInformer([notReady('a')]);
    nodes.lister.get = () => undefined; // listed, but no longer found by name: the helper re-reads from the API
    const c = new CloudNodeLifecycleController({
      informers: { nodes: () => nodes },
      client,
      cloud,
      recorder: new RecordingEventRecorder(),
      logger: testLogger,
      config: {},
    });
    await c.monitorNodes(abort.signal);
    // Without the signal the helper would re-read and re-patch up to 5 times after the stop.
    expect(calls).toEqual(['get a', 'patch a']);
  });
});

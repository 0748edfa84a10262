/**
 * Batch instance reads (decision 0103) against a real kube-apiserver: the cloud-node status pass and the
 * cloud-node-lifecycle monitor, each running through its descriptor, with a FakeCloud that lists its machines
 * two per page. Listed Nodes are answered from the listing; a Node not listed is deleted only when the per-Node
 * `instanceExists` says so; a failing listing never deletes or taints, and the per-Node calls take over.
 */
import { FakeCloud, kubeletNode } from '@ccm-kit/testing';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { cloudNodeController } from '../src/cloud-node/descriptor.js';
import { cloudNodeLifecycleController } from '../src/node-lifecycle/descriptor.js';
import { useNodeTestEnv, userTaints } from './cloud-node-harness.js';

const env = useNodeTestEnv();

const SHUTDOWN_KEY = 'node.cloudprovider.kubernetes.io/shutdown';

const metadataSubjects = (cloud: FakeCloud) => cloud.callLog.entries('instanceMetadata').map((e) => e.subject);

describe('cloud-node status pass with listInstanceStates', () => {
  it('refreshes addresses from the listing; the Nodes of a failing page are asked per Node', async () => {
    const names = [0, 1, 2].map((i) => env.name(`batch-status-${i}`));
    const cloud = new FakeCloud({ enableInstancesV2: true, instanceStatePageSize: 2 });
    for (const [i, name] of names.entries()) {
      cloud.setInstance(`fake://${name}`, { addresses: [{ type: 'InternalIP', address: `10.4.0.${i + 1}` }] });
      await env.createNode(
        kubeletNode(name, {
          taints: [],
          providerID: `fake://${name}`,
          addresses: [{ type: 'Hostname', address: name }],
        }),
      );
    }
    const hasIP = async (name: string, ip: string) =>
      (await env.getNode(name))?.status?.addresses?.some((a) => a.address === ip) ?? false;
    const { result, stop } = await env.startController(cloudNodeController, cloud, {
      nodeStatusUpdateFrequencyMs: 300,
    });
    try {
      expect(result.started).toBe(true);
      for (const [i, name] of names.entries()) await eventuallyValue(() => hasIP(name, `10.4.0.${i + 1}`), name);
      expect(cloud.callCount('listInstanceStates')).toBeGreaterThanOrEqual(2);
      expect(metadataSubjects(cloud)).toEqual([]);

      // Page 2 (the third machine) fails from now on: its Node is refreshed by a per-Node call.
      cloud.faults.injectError('listInstanceStates', { subject: 'page 2' });
      cloud.setInstance(`fake://${names[0]}`, { addresses: [{ type: 'InternalIP', address: '10.4.1.1' }] });
      cloud.setInstance(`fake://${names[2]}`, { addresses: [{ type: 'InternalIP', address: '10.4.1.3' }] });
      await eventuallyValue(() => hasIP(names[0]!, '10.4.1.1'), 'listed Node refreshed');
      await eventuallyValue(() => hasIP(names[2]!, '10.4.1.3'), 'per-Node fallback refreshed');
      expect(new Set(metadataSubjects(cloud))).toEqual(new Set([names[2]]));
    } finally {
      await stop();
    }
  });
});

describe('cloud-node-lifecycle monitor with listInstanceStates', () => {
  const start = (cloud: FakeCloud) =>
    env.startController(cloudNodeLifecycleController, cloud, { nodeMonitorPeriodMs: 200 });
  const notReady = (name: string) => kubeletNode(name, { taints: [], providerID: `fake://${name}`, ready: 'False' });

  it('taints a listed shut-down Node, keeps listed and unlisted-but-existing ones, deletes a confirmed gone one', async () => {
    const running = env.name('batch-lc-running');
    const down = env.name('batch-lc-down');
    const unlisted = env.name('batch-lc-unlisted');
    const gone = env.name('batch-lc-gone');
    const cloud = new FakeCloud({ enableInstancesV2: true, instanceStatePageSize: 2 });
    cloud.setInstance(`fake://${running}`, {});
    cloud.setInstance(`fake://${down}`, { shutdown: true });
    // Registered by name only: not in the listing, but instanceExists finds it (a Node missing from a listing).
    cloud.setInstance(unlisted, {});
    const created = new Map<string, string | undefined>();
    for (const name of [running, down, unlisted, gone]) {
      created.set(name, (await env.createNode(notReady(name))).metadata?.resourceVersion);
    }
    const { result, stop } = await start(cloud);
    try {
      expect(result.started).toBe(true);
      await eventuallyValue(async () => (await env.getNode(gone)) === undefined, 'gone Node deleted');
      await eventuallyValue(
        async () => userTaints(await env.getNode(down)).some((t) => t.key === SHUTDOWN_KEY),
        'shutdown taint',
      );
      await eventuallyValue(() => cloud.callCount('listInstanceStates') >= 4, 'two more passes');
      for (const name of [running, unlisted]) {
        expect((await env.getNode(name))?.metadata?.resourceVersion).toBe(created.get(name));
      }
      // Only the Nodes not listed were asked about per Node.
      const perNode = new Set(cloud.callLog.entries('instanceExists').map((e) => e.subject));
      expect(perNode).toEqual(new Set([unlisted, gone]));
      const events = await env.nodeEvents(gone);
      expect(events.map((e) => `${e.type} ${e.reason} ${e.message}`)).toEqual([
        `Normal DeletingNode Deleting node ${gone} because it does not exist in the cloud provider`,
      ]);
    } finally {
      await stop();
    }
  });

  it('a failing listing never deletes or taints; once the per-Node calls answer, they decide', async () => {
    const gone = env.name('batch-lc-fail-gone');
    const down = env.name('batch-lc-fail-down');
    const cloud = new FakeCloud({ enableInstancesV2: true, instanceStatePageSize: 2 });
    cloud.setInstance(`fake://${down}`, { shutdown: true });
    cloud.faults.injectError('listInstanceStates', { error: new Error('503 from the cloud') });
    cloud.faults.injectError(['instanceExists', 'instanceShutdown'], { error: new Error('cloud down') });
    const createdGone = await env.createNode(notReady(gone));
    const createdDown = await env.createNode(notReady(down));
    const { stop } = await start(cloud);
    try {
      await eventuallyValue(() => cloud.callCount('instanceExists') >= 6, 'three passes');
      expect((await env.getNode(gone))?.metadata?.resourceVersion).toBe(createdGone.metadata?.resourceVersion);
      expect((await env.getNode(down))?.metadata?.resourceVersion).toBe(createdDown.metadata?.resourceVersion);

      cloud.faults.injectError(['instanceExists', 'instanceShutdown'], undefined);
      await eventuallyValue(async () => (await env.getNode(gone)) === undefined, 'deleted per Node');
      await eventuallyValue(
        async () => userTaints(await env.getNode(down)).some((t) => t.key === SHUTDOWN_KEY),
        'tainted per Node',
      );
      expect(cloud.calls).not.toContain('list-instance-states');
    } finally {
      await stop();
    }
  });
});

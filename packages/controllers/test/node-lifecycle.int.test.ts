/**
 * cloud-node-lifecycle controller against a real kube-apiserver with FakeCloud: the upstream
 * `Test_NodesDeleted` / `Test_NodesShutdown` scenarios (LC-01..21) through one `monitorNodes` pass each,
 * then the controller running through its descriptor.
 */
import { InstanceNotFoundError } from '@ccm-kit/cloud-provider';
import {
  captureLogs,
  FakeCloud,
  type FakeCloudOptions,
  kubeletNode,
  memoryInformers,
  RecordingEventRecorder,
} from '@ccm-kit/testing';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { CloudNodeLifecycleController } from '../src/node-lifecycle/controller.js';
import { cloudNodeLifecycleController } from '../src/node-lifecycle/descriptor.js';
import { testLogger, useNodeTestEnv, userTaints } from './cloud-node-harness.js';

const env = useNodeTestEnv();

const SHUTDOWN = { key: 'node.cloudprovider.kubernetes.io/shutdown', effect: 'NoSchedule' };

interface Scenario {
  id: string;
  title: string;
  ready: 'True' | 'False' | 'Unknown';
  providerID?: string;
  cloud: (name: string) => FakeCloudOptions;
  expected: 'deleted' | 'unchanged' | 'shutdown-tainted';
}

const v2 = (o: FakeCloudOptions): FakeCloudOptions => ({ ...o, enableInstancesV2: true });

const deletedScenarios: Scenario[] = [
  {
    id: 'LC-01',
    title: 'node is not ready and does not exist',
    ready: 'False',
    cloud: () => ({ existsByProviderID: false }),
    expected: 'deleted',
  },
  {
    id: 'LC-02',
    title: 'node is not ready and provider returns err',
    ready: 'False',
    providerID: 'node0',
    cloud: () => ({ existsByProviderID: false, errByProviderID: new Error('err!') }),
    expected: 'unchanged',
  },
  {
    id: 'LC-03',
    title: 'node is not ready but still exists',
    ready: 'False',
    providerID: 'node0',
    cloud: () => ({ existsByProviderID: true, nodeShutdown: false }),
    expected: 'unchanged',
  },
  {
    id: 'LC-04',
    title: "node ready condition is unknown, node doesn't exist",
    ready: 'Unknown',
    cloud: () => ({ existsByProviderID: false }),
    expected: 'deleted',
  },
  {
    id: 'LC-05',
    title: 'node ready condition is unknown, node exists',
    ready: 'Unknown',
    cloud: (n) => ({ extID: { [n]: 'foo://12345' }, existsByProviderID: true, nodeShutdown: false }),
    expected: 'unchanged',
  },
  {
    id: 'LC-06',
    title: 'node is ready, but provider said it is deleted (maybe a bug in provider)',
    ready: 'True',
    providerID: 'node0',
    cloud: () => ({ existsByProviderID: false }),
    expected: 'unchanged',
  },
];

const v2Scenarios: Scenario[] = deletedScenarios.map((s, i) => ({
  ...s,
  id: `LC-${String(i + 7).padStart(2, '0')}`,
  title: `[instancev2] ${s.title}`,
  cloud: (n: string) => v2(s.cloud(n)),
}));

const shutdownScenarios: Scenario[] = [
  {
    id: 'LC-13',
    title: 'node is not ready and was shutdown, but exists',
    ready: 'False',
    providerID: 'node0',
    cloud: () => ({ existsByProviderID: true, nodeShutdown: true }),
    expected: 'shutdown-tainted',
  },
  {
    id: 'LC-14',
    title: 'node with empty spec providerID is not ready and was shutdown, but exists',
    ready: 'False',
    cloud: (n) => ({ extID: { [n]: 'foo://12345' }, existsByProviderID: true, nodeShutdown: true }),
    expected: 'shutdown-tainted',
  },
  {
    id: 'LC-15',
    title: 'node with non-existing providerID (missing in cloud provider) gets deleted',
    ready: 'False',
    cloud: (n) => ({ extID: { [n]: '' }, existsByProviderID: false }),
    expected: 'deleted',
  },
  {
    id: 'LC-16',
    title: 'node with error when getting providerID does not have shutdown taint',
    ready: 'False',
    cloud: (n) => ({ extIDErr: { [n]: new Error('err!') }, existsByProviderID: true, nodeShutdown: true }),
    expected: 'unchanged',
  },
  {
    id: 'LC-17',
    title: 'node with InstanceID returning InstanceNotFound gets deleted',
    ready: 'False',
    cloud: (n) => ({ extIDErr: { [n]: new InstanceNotFoundError() }, existsByProviderID: true }),
    expected: 'deleted',
  },
  {
    id: 'LC-18',
    title: 'node is not ready, but there is error checking if node is shutdown',
    ready: 'False',
    providerID: 'node0',
    cloud: () => ({ existsByProviderID: false, errShutdownByProviderID: new Error('err!') }),
    expected: 'deleted',
  },
  {
    id: 'LC-19',
    title: 'node is not ready and is not shutdown',
    ready: 'False',
    providerID: 'node0',
    cloud: () => ({ existsByProviderID: false, nodeShutdown: false }),
    expected: 'deleted',
  },
  {
    id: 'LC-20',
    title: "node is ready but provider says it's shutdown (maybe a bug by provider)",
    ready: 'True',
    providerID: 'node0',
    cloud: () => ({ existsByProviderID: true, nodeShutdown: true }),
    expected: 'unchanged',
  },
  {
    id: 'LC-21',
    title: 'node is shutdown but provider says it does not exist',
    ready: 'Unknown',
    providerID: 'node0',
    cloud: () => ({ existsByProviderID: false, nodeShutdown: true }),
    expected: 'deleted',
  },
];

/**
 * Runs `monitorNodes` over the informer's current copy of one Node only (an in-memory informer), so concurrent
 * tests' Nodes are not touched.
 */
async function monitorOnly(name: string, cloud: FakeCloud, recorder: RecordingEventRecorder): Promise<void> {
  const controller = new CloudNodeLifecycleController({
    informers: memoryInformers({ nodes: [env.informers.nodes().lister.get(name)!] }),
    client: env.core,
    cloud,
    recorder,
    logger: testLogger,
    config: {},
  });
  await controller.monitorNodes();
}

function runScenario(s: Scenario) {
  it(`${s.id}: ${s.title}`, async () => {
    const name = env.name(s.id);
    const created = await env.createNode(kubeletNode(name, { taints: [], providerID: s.providerID, ready: s.ready }));
    const cloud = new FakeCloud(s.cloud(name));
    const recorder = new RecordingEventRecorder();
    await monitorOnly(name, cloud, recorder);
    const stored = await env.getNode(name);
    const summary = recorder.events.map((e) => `${e.type} ${e.reason} ${e.message}`);
    for (const e of recorder.events) expect((e.object as { apiVersion?: string }).apiVersion).toBe('v1');
    if (s.expected === 'deleted') {
      expect(stored).toBeUndefined();
      expect(summary).toEqual([
        `Normal DeletingNode Deleting node ${name} because it does not exist in the cloud provider`,
      ]);
      return;
    }
    expect(stored).toBeDefined();
    expect(stored?.spec?.providerID ?? '').toBe(s.providerID ?? '');
    expect(summary).toEqual([]);
    if (s.expected === 'unchanged') {
      expect(stored?.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    } else {
      expect(userTaints(stored).map((t) => ({ key: t.key, effect: t.effect, value: t.value }))).toEqual([
        { ...SHUTDOWN, value: undefined },
      ]);
    }
  });
}

describe('MonitorNodes: Test_NodesDeleted', () => {
  for (const s of [...deletedScenarios, ...v2Scenarios]) runScenario(s);
});

describe('MonitorNodes: Test_NodesShutdown', () => {
  for (const s of shutdownScenarios) runScenario(s);

  it('a Ready node gets the shutdown taint removed, without any cloud call', async () => {
    const name = env.name('lc-ready');
    await env.createNode(
      kubeletNode(name, {
        taints: [SHUTDOWN, { key: 'keep', effect: 'NoSchedule' }],
        providerID: 'fake://1',
        ready: 'True',
      }),
    );
    const cloud = new FakeCloud({ existsByProviderID: false });
    await monitorOnly(name, cloud, new RecordingEventRecorder());
    const stored = await env.getNode(name);
    expect(userTaints(stored).map((t) => t.key)).toEqual(['keep']);
    expect(cloud.calls).toEqual([]);
  });

  it('a NotReady node that is not shut down keeps its shutdown taint', async () => {
    const name = env.name('lc-keep');
    const created = await env.createNode(
      kubeletNode(name, { taints: [SHUTDOWN], providerID: 'fake://1', ready: 'False' }),
    );
    await monitorOnly(
      name,
      new FakeCloud({ existsByProviderID: true, nodeShutdown: false }),
      new RecordingEventRecorder(),
    );
    expect((await env.getNode(name))?.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
  });

  it('a failed delete records DeletingNodeFailed', async () => {
    const name = env.name('lc-gone');
    await env.createNode(kubeletNode(name, { taints: [], ready: 'False' }));
    const lister = env.informers.nodes().lister;
    const cached = lister.get(name)!;
    await env.core.deleteNode({ name });
    const recorder = new RecordingEventRecorder();
    const controller = new CloudNodeLifecycleController({
      // The Node as the cache had it before the delete.
      informers: memoryInformers({ nodes: [cached] }),
      client: env.core,
      cloud: new FakeCloud({ existsByProviderID: false }),
      recorder,
      logger: testLogger,
      config: {},
    });
    await controller.monitorNodes();
    expect(recorder.events.map((e) => `${e.type} ${e.reason}`)).toEqual([
      'Normal DeletingNode',
      'Warning DeletingNodeFailed',
    ]);
    expect(recorder.events[1]?.message).toBe(`Failed deleting node ${name}: nodes "${name}" not found`);
  });
});

describe('cloud-node-lifecycle-controller running through its descriptor', () => {
  const startDescriptor = (cloud: FakeCloud) =>
    env.startController(cloudNodeLifecycleController, cloud, { nodeMonitorPeriodMs: 200 });

  it('deletes a NotReady Node once its instance is deleted, and toggles the shutdown taint', async () => {
    const gone = env.name('lc-e2e-gone');
    const sleepy = env.name('lc-e2e-sleepy');
    const cloud = new FakeCloud({ enableInstancesV2: true });
    cloud.setInstance(`fake://${gone}`, {});
    cloud.setInstance(`fake://${sleepy}`, { shutdown: true });
    const { result, stop } = await startDescriptor(cloud);
    try {
      expect(result.started).toBe(true);
      await env.createNode(kubeletNode(gone, { taints: [], providerID: `fake://${gone}`, ready: 'False' }));
      await env.createNode(kubeletNode(sleepy, { taints: [], providerID: `fake://${sleepy}`, ready: 'False' }));

      await eventuallyValue(
        async () => userTaints(await env.getNode(sleepy)).some((t) => t.key === SHUTDOWN.key),
        'shutdown taint',
      );
      expect(userTaints(await env.getNode(gone))).toEqual([]);
      // The instance of `gone` is deleted in the cloud (unregistered instances do not exist by default).
      cloud.deleteInstance(`fake://${gone}`);
      await eventuallyValue(async () => (await env.getNode(gone)) === undefined, 'deleted node');
      const events = await eventuallyValue(async () => {
        const evs = await env.nodeEvents(gone);
        return evs.length > 0 ? evs : undefined;
      }, 'DeletingNode event');
      expect(events[0]).toMatchObject({
        type: 'Normal',
        reason: 'DeletingNode',
        message: `Deleting node ${gone} because it does not exist in the cloud provider`,
        source: { component: 'cloud-node-lifecycle-controller' },
        metadata: { namespace: 'default' },
        involvedObject: { apiVersion: 'v1', kind: 'Node', name: gone },
      });
      // Upstream builds this reference by hand: name and UID, no resourceVersion.
      expect(events[0]?.involvedObject?.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(events[0]?.involvedObject?.resourceVersion).toBeUndefined();

      // Ready again: the shutdown taint goes away.
      await env.setStatus(sleepy, {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'ok',
            lastHeartbeatTime: new Date(),
            lastTransitionTime: new Date(),
          },
        ],
      });
      await eventuallyValue(
        async () => !userTaints(await env.getNode(sleepy)).some((t) => t.key === SHUTDOWN.key),
        'shutdown taint removed',
      );
    } finally {
      await stop();
    }
  });

  it('never deletes while the cloud errors', async () => {
    const name = env.name('lc-e2e-err');
    const cloud = new FakeCloud({ errByProviderID: new Error('throttled'), existsByProviderID: false });
    const { stop } = await startDescriptor(cloud);
    try {
      await env.createNode(kubeletNode(name, { taints: [], providerID: `fake://${name}`, ready: 'False' }));
      await eventuallyValue(
        () => cloud.calls.filter((c) => c === 'instance-exists-by-provider-id').length >= 3,
        'passes',
      );
      expect(await env.getNode(name)).toBeDefined();
    } finally {
      await stop();
    }
  });

  it('does not start without an instances facet, and logs why', async () => {
    const { lines, restore } = captureLogs();
    try {
      const { result } = await startDescriptor(new FakeCloud({ disableInstances: true }));
      expect(result).toMatchObject({ started: false, reason: 'cloud provider does not support instances' });
      expect(lines.some((l) => l.includes('cloud provider does not support instances'))).toBe(true);
    } finally {
      restore();
    }
  });
});

/**
 * cloud-node controller against a real kube-apiserver with FakeCloud: the upstream `Test_syncNode` and
 * `Test_reconcileNodeLabels` scenarios (NODE-01..25, 27, 28) through `syncNode`, then the controller running
 * end to end through its descriptor.
 */
import { NotImplementedError } from '@ccm-kit/cloud-provider';
import { metricsRegistry } from '@ccm-kit/runtime';
import {
  captureLogs,
  FakeCloud,
  type FakeCloudOptions,
  kubeletNode,
  RecordingEventRecorder,
  uninitializedTaint,
} from '@ccm-kit/testing';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import type { V1Node, V1NodeAddress, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { isUninitialized } from '../src/cloud-node/cloud-taint.js';
import { CloudNodeController } from '../src/cloud-node/controller.js';
import { cloudNodeController } from '../src/cloud-node/descriptor.js';
import { CLOUD_ADDRESSES, EXTRA_TAINT, testLogger, useNodeTestEnv, userTaints } from './cloud-node-harness.js';

const env = useNodeTestEnv();

const ZONE_LABELS = {
  'failure-domain.beta.kubernetes.io/zone': 'us-west-1a',
  'failure-domain.beta.kubernetes.io/region': 'us-west',
  'topology.kubernetes.io/zone': 'us-west-1a',
  'topology.kubernetes.io/region': 'us-west',
};
const NODE_IP = { 'alpha.kubernetes.io/provided-node-ip': '10.0.0.1' };
const TWO_ADDRESSES: V1NodeAddress[] = [
  { type: 'InternalIP', address: '10.0.0.1' },
  { type: 'ExternalIP', address: '132.143.154.163' },
];
const REORDERED: V1NodeAddress[] = [...TWO_ADDRESSES, { type: 'Hostname', address: 'node0.cloud.internal' }];

interface Scenario {
  id: string;
  title: string;
  /** FakeCloud knobs; `(name) => …` for knobs keyed by node name. */
  cloud: (name: string) => FakeCloudOptions;
  node: Parameters<typeof kubeletNode>[1];
  expectError?: boolean;
  /** Expected stored node fields; `'unchanged'` means equal to the created node. */
  expected:
    | 'unchanged'
    | {
        providerID?: string;
        taints: V1Taint[];
        labels?: Record<string, string>;
        addresses?: V1NodeAddress[];
      };
}

const v1 = (name: string, extra: FakeCloudOptions = {}): FakeCloudOptions => ({
  addresses: CLOUD_ADDRESSES,
  extID: { [name]: '12345' },
  ...extra,
});
const v2 = (extra: FakeCloudOptions = {}): FakeCloudOptions => ({
  enableInstancesV2: true,
  addresses: CLOUD_ADDRESSES,
  ...extra,
});

const scenarios: Scenario[] = [
  {
    id: 'NODE-01',
    title: 'node initialized with hostname',
    cloud: (n) => v1(n),
    node: { addresses: [{ type: 'Hostname', address: 'nodeoverriden' }] },
    expected: { providerID: 'fake://12345', taints: [], addresses: CLOUD_ADDRESSES },
  },
  {
    id: 'NODE-02',
    title: 'node initialized with hostname and cloud provider missing hostname',
    cloud: (n) => v1(n, { addresses: TWO_ADDRESSES }),
    node: { addresses: [{ type: 'Hostname', address: 'nodeoverriden' }] },
    expected: {
      providerID: 'fake://12345',
      taints: [],
      addresses: [...TWO_ADDRESSES, { type: 'Hostname', address: 'nodeoverriden' }],
    },
  },
  {
    id: 'NODE-03',
    title: 'node initialized with provider ID',
    cloud: (n) => v1(n),
    node: {},
    expected: { providerID: 'fake://12345', taints: [], addresses: CLOUD_ADDRESSES },
  },
  {
    id: 'NODE-04',
    title: 'node ignored',
    cloud: (n) => v1(n),
    node: { taints: [] },
    expected: 'unchanged',
  },
  {
    id: 'NODE-05',
    title: 'zone/region topology labels added',
    cloud: (n) => v1(n, { provider: 'aws', zone: { failureDomain: 'us-west-1a', region: 'us-west' } }),
    node: { labels: {}, ready: 'Unknown' },
    expected: { providerID: 'aws://12345', taints: [], labels: ZONE_LABELS, addresses: CLOUD_ADDRESSES },
  },
  {
    id: 'NODE-06',
    title: 'node addresses',
    cloud: (n) => v1(n),
    node: { taints: [uninitializedTaint(), EXTRA_TAINT] },
    expected: { providerID: 'fake://12345', taints: [EXTRA_TAINT], addresses: CLOUD_ADDRESSES },
  },
  {
    id: 'NODE-07',
    title: 'nil instanceMetadata provided by InstanceV2',
    cloud: () => v2({ overrideInstanceMetadata: () => undefined }),
    node: {
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
      providerID: 'node0.aws.12345',
      taints: [uninitializedTaint(), EXTRA_TAINT],
    },
    expected: 'unchanged',
  },
  {
    id: 'NODE-08',
    title: 'provided node IP address',
    cloud: (n) => v1(n, { addresses: TWO_ADDRESSES }),
    node: {
      annotations: NODE_IP,
      providerID: 'node0.aws.12345',
      taints: [uninitializedTaint(), EXTRA_TAINT],
      addresses: [{ type: 'Hostname', address: 'node0.cloud.internal' }],
    },
    expected: { providerID: 'node0.aws.12345', taints: [EXTRA_TAINT], addresses: REORDERED },
  },
  {
    id: 'NODE-09',
    title: 'provided node IP address is not valid',
    cloud: (n) => v1(n, { addresses: TWO_ADDRESSES }),
    node: {
      annotations: { 'alpha.kubernetes.io/provided-node-ip': 'invalid-ip' },
      providerID: 'node0.aws.12345',
      taints: [uninitializedTaint(), EXTRA_TAINT],
      addresses: [{ type: 'Hostname', address: 'node0.cloud.internal' }],
    },
    expectError: true,
    expected: 'unchanged',
  },
  {
    id: 'NODE-10',
    title: 'provided node IP address is not present',
    cloud: (n) => v1(n, { addresses: TWO_ADDRESSES }),
    node: {
      annotations: { 'alpha.kubernetes.io/provided-node-ip': '10.0.0.2' },
      providerID: 'node0.aws.12345',
      taints: [uninitializedTaint(), EXTRA_TAINT],
      addresses: [{ type: 'Hostname', address: 'node0.cloud.internal' }],
    },
    expectError: true,
    expected: 'unchanged',
  },
  {
    id: 'NODE-11',
    title: 'provider ID already set',
    cloud: (n) => v1(n),
    node: { providerID: 'test-provider-id', taints: [uninitializedTaint(), EXTRA_TAINT] },
    expected: { providerID: 'test-provider-id', taints: [EXTRA_TAINT], addresses: CLOUD_ADDRESSES },
  },
  {
    id: 'NODE-12',
    title: 'provider ID not implemented',
    cloud: (n) => ({ provider: 'test', extIDErr: { [n]: new NotImplementedError() } }),
    node: {},
    expected: { taints: [], addresses: undefined },
  },
  {
    id: 'NODE-13',
    title: '[instanceV2] node initialized with provider ID',
    cloud: (n) => v2({ instanceTypes: { [n]: 't1.micro' } }),
    node: { providerID: 'fake://12345' },
    expected: { providerID: 'fake://12345', taints: [], addresses: CLOUD_ADDRESSES },
  },
  {
    id: 'NODE-14',
    title: '[instanceV2] node ignored',
    cloud: () => v2(),
    node: { taints: [] },
    expected: 'unchanged',
  },
  {
    id: 'NODE-15',
    title: '[instanceV2] zone/region topology labels added',
    cloud: (n) => v2({ providerID: { [n]: 'fake://12345' }, zone: { failureDomain: 'us-west-1a', region: 'us-west' } }),
    node: { labels: {} },
    expected: { providerID: 'fake://12345', taints: [], labels: ZONE_LABELS, addresses: CLOUD_ADDRESSES },
  },
  {
    id: 'NODE-16',
    title: '[instanceV2] node addresses',
    cloud: (n) => v2({ providerID: { [n]: 'fake://12345' } }),
    node: { taints: [uninitializedTaint(), EXTRA_TAINT] },
    expected: { providerID: 'fake://12345', taints: [EXTRA_TAINT], addresses: CLOUD_ADDRESSES },
  },
  {
    id: 'NODE-17',
    title: '[instanceV2] provided node IP address',
    cloud: () => v2({ addresses: TWO_ADDRESSES }),
    node: {
      annotations: NODE_IP,
      providerID: 'node0.aws.12345',
      taints: [uninitializedTaint(), EXTRA_TAINT],
      addresses: [{ type: 'Hostname', address: 'node0.cloud.internal' }],
    },
    expected: { providerID: 'node0.aws.12345', taints: [EXTRA_TAINT], addresses: REORDERED },
  },
  {
    id: 'NODE-18',
    title: '[instanceV2] provided additional labels',
    cloud: () =>
      v2({
        addresses: TWO_ADDRESSES,
        zone: { failureDomain: 'us-west-1a', region: 'us-west' },
        additionalLabels: { 'topology.k8s.cp/zone-id': 'az1', 'my.custom.label/foo': 'bar' },
      }),
    node: {
      annotations: NODE_IP,
      providerID: 'node0.cp.12345',
      addresses: [{ type: 'Hostname', address: 'node0.cloud.internal' }],
    },
    expected: {
      providerID: 'node0.cp.12345',
      taints: [],
      labels: { ...ZONE_LABELS, 'topology.k8s.cp/zone-id': 'az1', 'my.custom.label/foo': 'bar' },
      addresses: REORDERED,
    },
  },
  {
    id: 'NODE-19',
    title: '[instanceV2] provided additional labels with labels to discard',
    cloud: () =>
      v2({
        addresses: TWO_ADDRESSES,
        zone: { failureDomain: 'us-west-1a', region: 'us-west' },
        additionalLabels: {
          'topology.kubernetes.io/region': 'us-other-west',
          'topology.k8s.io/region': 'us-other-west',
          'kubernetes.io/region': 'us-other-west',
          'k8s.io/region': 'us-other-west',
          'my.custom.label/foo': 'bar',
          'my.custom.label/bar': 'foo',
          'app.k8snio/bar': 'foo',
          'k8snio/bar': 'foo',
        },
      }),
    node: {
      annotations: NODE_IP,
      providerID: 'node0.cp.12345',
      labels: { 'my.custom.label/foo': 'fizz', 'my.custom.label/bar': 'foo' },
      addresses: [{ type: 'Hostname', address: 'node0.cloud.internal' }],
    },
    expected: {
      providerID: 'node0.cp.12345',
      taints: [],
      labels: {
        ...ZONE_LABELS,
        'my.custom.label/foo': 'fizz',
        'my.custom.label/bar': 'foo',
        'app.k8snio/bar': 'foo',
        'k8snio/bar': 'foo',
      },
      addresses: REORDERED,
    },
  },
  {
    id: 'NODE-20',
    title: '[instanceV2] provider ID already set',
    cloud: () => v2(),
    node: { providerID: 'test-provider-id' },
    expected: { providerID: 'test-provider-id', taints: [], addresses: CLOUD_ADDRESSES },
  },
  {
    id: 'NODE-21',
    title: '[instanceV2] provider ID not implemented',
    cloud: () => v2(),
    node: {},
    expectError: true,
    expected: 'unchanged',
  },
  {
    id: 'NODE-22',
    title: '[instanceV2] error getting InstanceMetadata',
    cloud: () => v2({ metadataErr: new Error('metadata error') }),
    node: {},
    expectError: true,
    expected: 'unchanged',
  },
];

function controllerFor(cloud: FakeCloud, recorder = new RecordingEventRecorder()): CloudNodeController {
  return new CloudNodeController({
    cloud,
    client: env.core,
    informers: env.informers,
    recorder,
    logger: testLogger,
    config: {},
  });
}

/** The fields the scenarios compare, as plain data; nil and empty are equal, as upstream's comparisons. */
function comparable(node: V1Node | undefined) {
  return {
    providerID: node?.spec?.providerID ?? '',
    taints: userTaints(node).map((t) => ({ key: t.key, value: t.value, effect: t.effect })),
    labels: { ...(node?.metadata?.labels ?? {}) },
    annotations: { ...(node?.metadata?.annotations ?? {}) },
    addresses: (node?.status?.addresses ?? []).map((a) => ({ type: a.type, address: a.address })),
    conditions: (node?.status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status })),
  };
}

describe('syncNode (Test_syncNode)', () => {
  for (const s of scenarios) {
    it(`${s.id}: ${s.title}`, async () => {
      const name = env.name(s.id);
      const created = await env.createNode(kubeletNode(name, s.node));
      const cloud = new FakeCloud(s.cloud(name));
      const recorder = new RecordingEventRecorder();
      const controller = controllerFor(cloud, recorder);
      const result = await controller.syncNode(name).then(
        () => undefined,
        (err: unknown) => err,
      );
      if (s.expectError) expect(result).toBeInstanceOf(Error);
      else expect(result).toBeUndefined();

      const stored = await env.getNode(name);
      if (s.expected === 'unchanged') {
        expect(stored?.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
        expect(comparable(stored)).toEqual(comparable(created));
        return;
      }
      const want = comparable(created);
      want.providerID = s.expected.providerID ?? '';
      want.taints = s.expected.taints.map((t) => ({ key: t.key, value: t.value, effect: t.effect }));
      if (s.expected.labels) want.labels = s.expected.labels;
      if (s.expected.addresses) want.addresses = s.expected.addresses;
      expect(comparable(stored)).toEqual(want);
      expect(recorder.events.map((e) => `${e.type} ${e.reason} ${e.message}`)).toEqual([
        'Normal Synced Node synced successfully',
      ]);
    });
  }
});

describe('reconcileNodeLabels (Test_reconcileNodeLabels)', () => {
  const beta = {
    'failure-domain.beta.kubernetes.io/zone': 'foo',
    'failure-domain.beta.kubernetes.io/region': 'bar',
    'beta.kubernetes.io/instance-type': 'the-best-type',
  };
  const ga = {
    'topology.kubernetes.io/zone': 'foo',
    'topology.kubernetes.io/region': 'bar',
    'node.kubernetes.io/instance-type': 'the-best-type',
  };
  const cases: Array<[string, string, Record<string, string>, Record<string, string>]> = [
    ['NODE-23', 'requires reconcile', beta, { ...beta, ...ga }],
    ['NODE-24', "doesn't require reconcile", { ...beta, ...ga }, { ...beta, ...ga }],
    [
      'NODE-25',
      'require reconcile -- secondary labels are different from primary',
      {
        ...beta,
        'topology.kubernetes.io/zone': 'wrongfoo',
        'topology.kubernetes.io/region': 'wrongbar',
        'node.kubernetes.io/instance-type': 'the-wrong-type',
      },
      { ...beta, ...ga },
    ],
  ];
  for (const [id, title, labels, want] of cases) {
    it(`${id}: ${title}`, async () => {
      const name = env.name(id);
      const created = await env.createNode(kubeletNode(name, { taints: [], labels }));
      const cloud = new FakeCloud();
      await controllerFor(cloud).syncNode(name);
      const stored = await env.getNode(name);
      expect(stored?.metadata?.labels).toEqual(want);
      if (id === 'NODE-24') expect(stored?.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
      expect(cloud.calls).toEqual([]);
    });
  }
});

describe('status loop guard', () => {
  for (const [id, enableInstancesV2] of [
    ['NODE-27', true],
    ['NODE-28', false],
  ] as const) {
    it(`${id}: a node that still has the cloud taint gets no addresses (${enableInstancesV2 ? 'v2' : 'v1'})`, async () => {
      const name = env.name(id);
      await env.createNode(kubeletNode(name, { providerID: 'fake://1' }));
      const cloud = new FakeCloud({ enableInstancesV2, addresses: CLOUD_ADDRESSES });
      const controller = controllerFor(cloud);
      await controller.updateNodeStatus();
      const cached = env.informers.nodes().lister.get(name)!;
      await controller.updateNodeAddress(cached, { nodeAddresses: CLOUD_ADDRESSES });
      expect((await env.getNode(name))?.status?.addresses ?? []).toEqual([]);
    });
  }
});

describe('cloud-node-controller running through its descriptor', () => {
  const startDescriptor = (cloud: FakeCloud, config: Parameters<typeof env.startController>[2] = {}) =>
    env.startController(cloudNodeController, cloud, config);

  it('initializes a Node registered by a kubelet with --cloud-provider=external (InstancesV2)', async () => {
    const name = env.name('kubelet-v2');
    const cloud = new FakeCloud({ enableInstancesV2: true });
    cloud.setInstance(name, {
      providerID: `fake://${name}-id`,
      addresses: [
        { type: 'InternalIP', address: '10.1.0.5' },
        { type: 'ExternalIP', address: '203.0.113.5' },
      ],
      instanceType: 'm5.large',
      zone: 'zone-a',
      region: 'region-1',
      additionalLabels: { 'example.com/pool': 'blue', 'kubernetes.io/evil': 'x' },
    });
    const { result, stop } = await startDescriptor(cloud);
    try {
      expect(result.started).toBe(true);
      await env.createNode(
        kubeletNode(name, {
          addresses: [
            { type: 'Hostname', address: name },
            { type: 'InternalIP', address: '10.1.0.5' },
          ],
        }),
      );
      const node = await eventuallyValue(async () => {
        const n = await env.getNode(name);
        return n?.spec?.providerID && (n.status?.addresses?.length ?? 0) === 3 ? n : undefined;
      }, 'node initialized');
      expect(node.spec?.providerID).toBe(`fake://${name}-id`);
      expect(userTaints(node)).toEqual([]);
      expect(node.metadata?.labels).toMatchObject({
        'beta.kubernetes.io/instance-type': 'm5.large',
        'node.kubernetes.io/instance-type': 'm5.large',
        'failure-domain.beta.kubernetes.io/zone': 'zone-a',
        'topology.kubernetes.io/zone': 'zone-a',
        'failure-domain.beta.kubernetes.io/region': 'region-1',
        'topology.kubernetes.io/region': 'region-1',
        'example.com/pool': 'blue',
      });
      expect(node.metadata?.labels).not.toHaveProperty('kubernetes.io/evil');
      expect(comparable(node).addresses).toEqual([
        { type: 'InternalIP', address: '10.1.0.5' },
        { type: 'ExternalIP', address: '203.0.113.5' },
        { type: 'Hostname', address: name },
      ]);
      const events = await eventuallyValue(async () => {
        const evs = await env.nodeEvents(name);
        return evs.length > 0 ? evs : undefined;
      }, 'the Synced event');
      expect(events[0]).toMatchObject({
        type: 'Normal',
        reason: 'Synced',
        message: 'Node synced successfully',
        source: { component: 'cloud-node-controller' },
        metadata: { namespace: 'default' },
        involvedObject: { apiVersion: 'v1', kind: 'Node', name, uid: node.metadata?.uid },
      });
      // GetReference on the Node copy: the reference carries a resourceVersion, as upstream.
      expect(events[0]?.involvedObject?.resourceVersion).toMatch(/^\d+$/);
      const metrics = await metricsRegistry.getSingleMetricAsString(
        'node_controller_cloud_provider_taint_removal_delay_seconds',
      );
      expect(metrics).toMatch(/node_controller_cloud_provider_taint_removal_delay_seconds_count [1-9]/);
      expect(await metricsRegistry.getSingleMetricAsString('node_controller_initial_node_sync_delay_seconds')).toMatch(
        /node_controller_initial_node_sync_delay_seconds_count [1-9]/,
      );
    } finally {
      await stop();
    }
  });

  it('initializes with a partial provider (Instances + Zones only)', async () => {
    const name = env.name('kubelet-v1');
    const cloud = new FakeCloud({ enableInstancesV2: false });
    cloud.setInstance(name, {
      providerID: `fake://${name}`,
      addresses: [{ type: 'InternalIP', address: '10.2.0.7' }],
      instanceType: 'small',
      zone: 'z1',
      region: 'r1',
    });
    const { result, stop } = await startDescriptor(cloud);
    try {
      expect(result.started).toBe(true);
      await env.createNode(kubeletNode(name, { addresses: [{ type: 'Hostname', address: name }] }));
      const node = await eventuallyValue(async () => {
        const n = await env.getNode(name);
        return n && !isUninitialized(n) && n.status?.addresses?.length === 2 ? n : undefined;
      }, 'node initialized');
      expect(node.spec?.providerID).toBe(`fake://${name}`);
      expect(node.metadata?.labels).toMatchObject({
        'node.kubernetes.io/instance-type': 'small',
        'topology.kubernetes.io/zone': 'z1',
        'topology.kubernetes.io/region': 'r1',
      });
      expect(cloud.calls).toEqual(
        expect.arrayContaining(['instance-id', 'node-addresses-by-provider-id', 'get-zone-by-provider-id']),
      );
      expect(cloud.calls).not.toContain('instance-metadata-by-provider-id');
    } finally {
      await stop();
    }
  });

  it('does not start without an instances facet, and logs why', async () => {
    const { lines, restore } = captureLogs();
    try {
      const cloud = new FakeCloud({ disableInstances: true, enableInstancesV2: false });
      const { result } = await startDescriptor(cloud);
      expect(result).toMatchObject({ started: false, reason: 'cloud provider does not support instances' });
      expect(lines.some((l) => l.includes('cloud provider does not support instances'))).toBe(true);
    } finally {
      restore();
    }
  });

  it('reconciles beta -> GA labels when an initialized Node is updated', async () => {
    const name = env.name('relabel');
    const cloud = new FakeCloud({ enableInstancesV2: true });
    const { stop } = await startDescriptor(cloud);
    try {
      await env.createNode(kubeletNode(name, { taints: [], providerID: 'fake://x' }));
      await env.core.patchNode({
        name,
        body: [{ op: 'add', path: '/metadata/labels', value: { 'failure-domain.beta.kubernetes.io/zone': 'z9' } }],
      });
      await eventuallyValue(
        async () => (await env.getNode(name))?.metadata?.labels?.['topology.kubernetes.io/zone'] === 'z9',
        'GA zone label',
      );
    } finally {
      await stop();
    }
  });

  it('refreshes addresses of initialized Nodes every nodeStatusUpdateFrequencyMs', async () => {
    const name = env.name('refresh');
    const cloud = new FakeCloud({ enableInstancesV2: true });
    cloud.setInstance(`fake://${name}`, { addresses: [{ type: 'InternalIP', address: '10.3.0.1' }] });
    const { stop } = await startDescriptor(cloud, {
      nodeStatusUpdateFrequencyMs: 300,
      concurrentNodeStatusUpdates: 2,
    });
    try {
      await env.createNode(
        kubeletNode(name, {
          taints: [],
          providerID: `fake://${name}`,
          addresses: [{ type: 'Hostname', address: name }],
        }),
      );
      await eventuallyValue(
        async () => (await env.getNode(name))?.status?.addresses?.some((a) => a.address === '10.3.0.1'),
        'first addresses',
      );
      cloud.setInstance(`fake://${name}`, { addresses: [{ type: 'InternalIP', address: '10.3.0.2' }] });
      const node = await eventuallyValue(async () => {
        const n = await env.getNode(name);
        return n?.status?.addresses?.some((a) => a.address === '10.3.0.2') ? n : undefined;
      }, 'refreshed addresses');
      expect(comparable(node).addresses).toEqual([
        { type: 'InternalIP', address: '10.3.0.2' },
        { type: 'Hostname', address: name },
      ]);
      expect(node.metadata?.labels ?? {}).not.toHaveProperty('topology.kubernetes.io/zone');
    } finally {
      await stop();
    }
  });
});

describe('addresses status patch against the apiserver', () => {
  const DUAL_STACK: V1NodeAddress[] = [
    { type: 'InternalIP', address: '10.0.0.1' },
    { type: 'InternalIP', address: 'fd00::1' },
    { type: 'Hostname', address: 'node0.cloud.internal' },
  ];

  it('a Node registered without addresses gets every dual-stack address from the plain-list patch', async () => {
    const name = env.name('dual-empty');
    await env.createNode(kubeletNode(name, { providerID: `fake://${name}` }));
    const cloud = new FakeCloud({ addresses: DUAL_STACK });
    await controllerFor(cloud).syncNode(name);
    expect(comparable(await env.getNode(name)).addresses).toEqual(DUAL_STACK);
  });

  it('a Node with kubelet addresses gets them replaced, both InternalIPs kept ($patch: replace)', async () => {
    const name = env.name('dual-replace');
    await env.createNode(
      kubeletNode(name, {
        providerID: `fake://${name}`,
        addresses: [
          { type: 'InternalIP', address: '192.168.0.9' },
          { type: 'Hostname', address: 'kubelet-name' },
        ],
      }),
    );
    const cloud = new FakeCloud({ addresses: DUAL_STACK });
    await controllerFor(cloud).syncNode(name);
    expect(comparable(await env.getNode(name)).addresses).toEqual(DUAL_STACK);
  });
});

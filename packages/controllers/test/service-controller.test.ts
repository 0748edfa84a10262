/**
 * The service load-balancer controller against FakeCloud and in-memory informers, client and recorder:
 * upstream controllers/service/controller_test.go scenarios SVC-01..42, 47, 69..76, 138..140,
 * and upstream quirks 1-11 (docs/upstream-quirks.md).
 */
import {
  defaultLoadBalancerName,
  ImplementedElsewhereError,
  LOAD_BALANCER_CLEANUP_FINALIZER,
  RetryError,
  STRATEGIC_MERGE_PATCH_CONTENT_TYPE,
} from '@ccm-kit/cloud-provider';
import { type Logger, metricsRegistry } from '@ccm-kit/runtime';
import { processNextWorkItem } from '@ccm-kit/runtime/controller';
import { Workqueue } from '@ccm-kit/runtime/workqueue';
import {
  FakeCloud,
  MemoryInformer,
  RecordingEventRecorder,
  RecordingLogger,
  type UpdateBalancerCall,
} from '@ccm-kit/testing';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { defaultCloudControllerConfig } from '../src/contract/controller-config.js';
import { type ControllerContext } from '../src/contract/controller-context.js';
import { NODE_SYNC_KEY, ServiceController } from '../src/service/controller.js';
import { serviceLbController } from '../src/service/descriptor.js';
import { serviceQueueRateLimiter } from '../src/service/queue-backoff.js';
import { needsCleanup } from '../src/service/service-ownership.js';
import { apiError, makeNode, newService, RecordingClient, RecordingQueue } from './service-fixtures.js';

interface Harness {
  controller: ServiceController;
  cloud: FakeCloud;
  services: MemoryInformer<V1Service>;
  nodes: MemoryInformer<V1Node>;
  client: RecordingClient;
  recorder: RecordingEventRecorder;
  serviceQueue: RecordingQueue;
  nodeQueue: RecordingQueue;
}

/** Upstream `newController`: fake cloud in region `us-central`, cluster `test-cluster`, synced informers. */
function newController(
  opts: {
    services?: V1Service[];
    nodes?: V1Node[];
    loadBalancerClass?: string;
    nodeOwnership?: (n: V1Node) => boolean;
    concurrentServiceSyncs?: number;
  } = {},
): Harness {
  const cloud = new FakeCloud({ zone: { failureDomain: '', region: 'us-central' } });
  const services = new MemoryInformer<V1Service>();
  const nodes = new MemoryInformer<V1Node>();
  services.set(...(opts.services ?? []));
  nodes.set(...(opts.nodes ?? []));
  const client = new RecordingClient();
  const recorder = new RecordingEventRecorder();
  const serviceQueue = new RecordingQueue();
  const nodeQueue = new RecordingQueue();
  const controller = new ServiceController({
    cloud,
    client,
    informers: { services: () => services, nodes: () => nodes },
    recorder,
    serviceQueue,
    nodeQueue,
    // Upstream's timing: a node sync queued at once for every Node change (the window has its own tests).
    config: {
      clusterName: 'test-cluster',
      loadBalancerClass: opts.loadBalancerClass,
      nodeOwnership: opts.nodeOwnership,
      hostUpdateWindowMs: 0,
      concurrentServiceSyncs: opts.concurrentServiceSyncs,
    },
  });
  return { controller, cloud, services, nodes, client, recorder, serviceQueue, nodeQueue };
}

const key = (svc: V1Service) => `${svc.metadata!.namespace}/${svc.metadata!.name}`;
const withFinalizer = (svc: V1Service): V1Service => {
  svc.metadata!.finalizers = [LOAD_BALANCER_CLEANUP_FINALIZER];
  return svc;
};
const names = (nodes: readonly V1Node[]) => nodes.map((n) => n.metadata!.name).sort();
/** The update calls as a sorted multiset of `service:[hosts]`. */
const callSet = (calls: UpdateBalancerCall[]) =>
  calls.map((c) => `${c.service.metadata!.name}:${names(c.hosts).join(',')}`).sort();
const node = (name: string, extra: Parameters<typeof makeNode>[0] = {}) => makeNode({ name, ...extra });

describe('TestSyncLoadBalancerIfNeeded', () => {
  const lbParams = (h: Harness, svc: V1Service) => {
    const balancer = h.cloud.balancers.get(h.cloud.getLoadBalancerName('test-cluster', svc));
    expect(balancer).toBeDefined();
    expect(balancer!.name).toBe(defaultLoadBalancerName(svc));
    expect(balancer!.region).toBe('us-central');
    expect(balancer!.ports[0]!.port).toBe(80);
  };

  it("SVC-01: service doesn't want LB", async () => {
    const h = newController();
    const svc = newService('no-external-balancer', 'ClusterIP');
    expect(await h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).toBe('delete');
    expect(h.cloud.calls).toEqual([]);
    expect(h.client.actions).toHaveLength(0);
    // upstream quirk 9 in docs/upstream-quirks.md: DeletedLoadBalancer is emitted even though no load balancer ever existed.
    expect(h.recorder.lines).toEqual(['Normal DeletedLoadBalancer Deleted load balancer']);
  });

  for (const [id, protocol] of [
    ['SVC-02: udp service that wants LB', 'UDP'],
    ['SVC-03: tcp service that wants LB', 'TCP'],
    ['SVC-04: sctp service that wants LB', 'SCTP'],
  ] as const) {
    it(id, async () => {
      const h = newController({ nodes: [node('node1')] });
      const svc = newService('balancer', 'LoadBalancer', { spec: { ports: [{ port: 80, protocol }] } });
      expect(await h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).toBe('ensure');
      expect(h.cloud.calls).toContain('create');
      lbParams(h, svc);
      expect(h.client.actions).toHaveLength(2);
      // The finalizer goes first, before any cloud call (upstream quirk 6 in docs/upstream-quirks.md), then the status.
      expect(h.client.actions[0]!.patch).toEqual({
        metadata: { finalizers: [LOAD_BALANCER_CLEANUP_FINALIZER] },
      });
      expect(h.client.actions[1]!.patch).toEqual({
        status: { loadBalancer: { ingress: [{ ip: '', ports: [{ port: 80, protocol }] }] } },
      });
      expect(h.recorder.lines).toEqual([
        'Normal EnsuringLoadBalancer Ensuring load balancer',
        'Normal EnsuredLoadBalancer Ensured load balancer',
      ]);
    });
  }

  it('the finalizer and status patches go to services/<namespace>/<name>/status as strategic merge patches', async () => {
    const h = newController({ nodes: [node('node1')] });
    const svc = newService('balancer', 'LoadBalancer');
    await h.controller.syncLoadBalancerIfNeeded(svc, key(svc));
    expect(h.client.actions.map((a) => `${a.namespace}/${a.name}`)).toEqual(['default/balancer', 'default/balancer']);
    expect(h.client.contentTypes).toEqual([STRATEGIC_MERGE_PATCH_CONTENT_TYPE, STRATEGIC_MERGE_PATCH_CONTENT_TYPE]);
    // Neither answer is used (upstream discards the patched Service too): the raw client reads it without parsing.
    expect(h.client.answerDiscarded).toEqual([true, true]);
  });

  it('SVC-05: service specifies loadBalancerClass', async () => {
    const h = newController();
    const svc = newService('with-class', 'LoadBalancer', {
      spec: { loadBalancerClass: 'custom-loadbalancer' },
    });
    expect(await h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).toBe('delete');
    expect(h.cloud.calls).toEqual([]);
    expect(h.client.actions).toHaveLength(0);
  });

  it('SVC-06: service with finalizer that no longer wants LB', async () => {
    const h = newController();
    h.cloud.exists = true;
    const svc = withFinalizer(
      newService('no-lb', 'ClusterIP', { status: { loadBalancer: { ingress: [{ ip: '8.8.8.8' }] } } }),
    );
    expect(await h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).toBe('delete');
    expect(h.cloud.calls).toEqual(['delete']);
    expect(h.client.actions).toHaveLength(2);
    // The finalizer is removed before the status is cleared (upstream quirk 6 in docs/upstream-quirks.md).
    expect(h.client.actions[0]!.patch).toEqual({ metadata: { finalizers: null } });
    expect(h.client.actions[1]!.patch).toEqual({ status: { loadBalancer: { ingress: null } } });
    expect(h.recorder.lines).toEqual([
      'Normal DeletingLoadBalancer Deleting load balancer',
      'Normal DeletedLoadBalancer Deleted load balancer',
    ]);
  });

  it('SVC-07: service that needs cleanup', async () => {
    const h = newController();
    h.cloud.exists = true;
    const svc = withFinalizer(
      newService('deleting', 'LoadBalancer', { status: { loadBalancer: { ingress: [{ ip: '8.8.8.8' }] } } }),
    );
    svc.metadata!.deletionTimestamp = new Date();
    expect(await h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).toBe('delete');
    expect(h.cloud.calls).toEqual(['delete']);
    expect(h.client.actions).toHaveLength(2);
  });

  it('SVC-08: service with finalizer that wants LB', async () => {
    const h = newController({ nodes: [node('node1')] });
    const svc = withFinalizer(newService('balancer', 'LoadBalancer'));
    expect(await h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).toBe('ensure');
    expect(h.cloud.calls).toContain('create');
    lbParams(h, svc);
    expect(h.client.actions).toHaveLength(1);
    expect(Object.keys(h.client.actions[0]!.patch)).toEqual(['status']);
  });

  it('patches go to the Service by namespace and name', async () => {
    const h = newController();
    const svc = newService('balancer', 'LoadBalancer');
    await h.controller.syncLoadBalancerIfNeeded(svc, key(svc));
    expect(h.client.actions.map((a) => `${a.namespace}/${a.name}`)).toEqual(['default/balancer', 'default/balancer']);
  });
});

describe('TestUpdateNodesInExternalLoadBalancer', () => {
  const nodes = [node('node1'), node('node2'), node('node3')];
  const cases: [string, (V1Service | undefined)[], number, string[]][] = [
    ['SVC-09: No services present: no calls should be made.', [], 1, []],
    [
      'SVC-10: Services do not have external load balancers: no calls should be made.',
      [newService('s0', 'ClusterIP'), newService('s1', 'NodePort')],
      2,
      [],
    ],
    [
      'SVC-11: Services does have an external load balancer: one call should be made.',
      [newService('s0', 'LoadBalancer')],
      3,
      ['s0:node1,node2,node3'],
    ],
    [
      'SVC-12: Three services have an external load balancer: three calls.',
      [newService('s0', 'LoadBalancer'), newService('s1', 'LoadBalancer'), newService('s2', 'LoadBalancer')],
      4,
      ['s0:node1,node2,node3', 's1:node1,node2,node3', 's2:node1,node2,node3'],
    ],
    [
      "SVC-13: Two services have an external load balancer and two don't: two calls.",
      [
        newService('s0', 'LoadBalancer'),
        newService('s1', 'NodePort'),
        newService('s3', 'LoadBalancer'),
        newService('s4', 'ClusterIP'),
      ],
      5,
      ['s0:node1,node2,node3', 's3:node1,node2,node3'],
    ],
    [
      'SVC-14: One service has an external load balancer and one is nil: one call.',
      [newService('s0', 'LoadBalancer'), undefined],
      6,
      ['s0:node1,node2,node3'],
    ],
    [
      'SVC-15: Four services have external load balancer with only 2 workers',
      ['s0', 's1', 's3', 's4'].map((n) => newService(n, 'LoadBalancer')),
      2,
      ['s0', 's1', 's3', 's4'].map((n) => `${n}:node1,node2,node3`),
    ],
  ];
  for (const [name, services, workers, want] of cases) {
    it(name, async () => {
      const h = newController({ nodes });
      const retry = await h.controller.updateLoadBalancerHosts(services, workers);
      expect([...retry]).toEqual([]);
      expect(callSet(h.cloud.updateCalls)).toEqual(want);
    });
  }
});

describe('TestNodeChangesForStableNodeSetEnabled', () => {
  const n1 = node('node1');
  const n2 = node('node2');
  const n3 = node('node3');
  const n2NotReady = node('node2', { ready: 'False' });
  const n2Tainted = node('node2', {
    taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }],
  });
  const n2Excluded = node('node2', {
    labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' },
  });
  const n2Deleting = node('node2', { deletionTimestamp: new Date() });
  const n2OtherTaint = node('node2', { taints: [{ key: 'Other', effect: 'NoSchedule' }] });
  const services = () => [
    newService('s0', 'LoadBalancer'),
    newService('s1', 'LoadBalancer', { spec: { externalTrafficPolicy: 'Local' } }),
    newService('external-balancer', 'LoadBalancer'),
  ];
  const all3 = (hosts: string) => ['external-balancer', 's0', 's1'].map((s) => `${s}:${hosts}`);
  const cases: [string, V1Node[], { nodes: V1Node[]; syncCallErr?: boolean }[], string[]][] = [
    ['SVC-16: No node changes', [n1, n2, n3], [{ nodes: [n1, n2, n3] }], []],
    ['SVC-17: 1 new node gets added', [n1, n2], [{ nodes: [n1, n2, n3] }], all3('node1,node2,node3')],
    [
      'SVC-18: 1 new node gets added - with retries',
      [n1, n2],
      [{ nodes: [n1, n2, n3], syncCallErr: true }, { nodes: [n1, n2, n3] }],
      all3('node1,node2,node3'),
    ],
    ['SVC-19: 1 node goes NotReady', [n1, n2, n3], [{ nodes: [n1, n2NotReady, n3] }], []],
    ['SVC-20: 1 node gets Tainted', [n1, n2, n3], [{ nodes: [n1, n2Tainted, n3] }], all3('node1,node3')],
    ['SVC-21: 1 node goes Ready', [n1, n2NotReady, n3], [{ nodes: [n1, n2, n3] }], []],
    ['SVC-22: 1 node get excluded', [n1, n2, n3], [{ nodes: [n1, n2Excluded, n3] }], all3('node1,node3')],
    ['SVC-23: 1 old node gets deleted', [n1, n2, n3], [{ nodes: [n1, n2] }], all3('node1,node2')],
    ['SVC-24: 1 node marked for deletion', [n1, n2, n3], [{ nodes: [n1, n2Deleting, n3] }], all3('node1,node3')],
    ['SVC-25: 1 spurious node update', [n1, n2, n3], [{ nodes: [n1, n2OtherTaint, n3] }], []],
  ];
  for (const [name, initial, changes, want] of cases) {
    it(name, async () => {
      const h = newController();
      const svcs = services();
      for (const s of svcs) h.controller.lastSyncedNodes.set(key(s), initial);
      for (const change of changes) {
        h.nodes.items.clear();
        h.nodes.set(...change.nodes);
        if (change.syncCallErr) h.cloud.err = new Error('error please');
        const retry = await h.controller.updateLoadBalancerHosts(svcs, 3);
        h.cloud.err = undefined;
        // A failed update asks for a retry through the service queue; a later node sync does not repeat it.
        expect(retry.size).toBe(change.syncCallErr ? 3 : 0);
      }
      expect(callSet(h.cloud.updateCalls)).toEqual(want);
    });
  }
});

describe('TestNodeChangesInExternalLoadBalancer', () => {
  const services = ['s0', 's1', 's2', 's3'].map((n) => newService(n, 'LoadBalancer'));
  const h = newController();
  const step = async (nodes: V1Node[] | 'error', workers: number) => {
    h.nodes.items.clear();
    h.nodes.listError = undefined;
    if (nodes === 'error') h.nodes.listError = new Error('the lister failed');
    else h.nodes.set(...nodes);
    h.cloud.clearBalancerCalls();
    return h.controller.updateLoadBalancerHosts(services, workers);
  };
  it('SVC-26: only 1 node', async () => {
    expect((await step([node('node1')], 3)).size).toBe(0);
    expect(callSet(h.cloud.updateCalls)).toEqual(['s0', 's1', 's2', 's3'].map((s) => `${s}:node1`));
  });
  it('SVC-27: 2 nodes', async () => {
    expect((await step([node('node1'), node('node2')], 1)).size).toBe(0);
    expect(callSet(h.cloud.updateCalls)).toEqual(['s0', 's1', 's2', 's3'].map((s) => `${s}:node1,node2`));
  });
  it('SVC-28: 4 nodes', async () => {
    expect(
      (
        await step(
          ['node1', 'node2', 'node3', 'node4'].map((n) => node(n)),
          3,
        )
      ).size,
    ).toBe(0);
    expect(callSet(h.cloud.updateCalls)).toEqual(['s0', 's1', 's2', 's3'].map((s) => `${s}:node1,node2,node3,node4`));
  });
  it('SVC-29: error occur during sync', async () => {
    const retry = await step('error', 3);
    expect(h.cloud.updateCalls).toEqual([]);
    expect([...retry].sort()).toEqual(['default/s0', 'default/s1', 'default/s2', 'default/s3']);
  });
  it('SVC-30: error occur during sync with 1 workers', async () => {
    const retry = await step('error', 1);
    expect(h.cloud.updateCalls).toEqual([]);
    expect([...retry].sort()).toEqual(['default/s0', 'default/s1', 'default/s2', 'default/s3']);
  });
});

describe('TestNodesNotEqual', () => {
  const svcs = () => [newService('s0', 'LoadBalancer'), newService('s1', 'LoadBalancer')];
  const cases: [string, V1Node[], V1Node[], string[]][] = [
    [
      'SVC-31: Nodes with updated providerID',
      [node('node1', { providerID: '' }), node('node2', { providerID: '' })],
      [node('node1', { providerID: 'cumulus/1' }), node('node2', { providerID: 'cumulus/2' })],
      ['s0:node1,node2', 's1:node1,node2'],
    ],
    [
      'SVC-32: Nodes unchanged',
      [node('node1', { providerID: 'cumulus/1' }), node('node2', { providerID: '' })],
      [node('node1', { providerID: 'cumulus/1' }), node('node2', { providerID: '' })],
      [],
    ],
    [
      'SVC-33: Change node with empty providerID',
      [node('node1', { providerID: 'cumulus/1' }), node('node2', { providerID: '' })],
      [node('node1', { providerID: 'cumulus/1' }), node('node3', { providerID: '' })],
      ['s0:node1,node3', 's1:node1,node3'],
    ],
  ];
  for (const [name, before, after, want] of cases) {
    it(name, async () => {
      const h = newController({ nodes: after });
      const services = svcs();
      for (const s of services) h.controller.lastSyncedNodes.set(key(s), before);
      await h.controller.updateLoadBalancerHosts(services, 5);
      expect(callSet(h.cloud.updateCalls)).toEqual(want);
    });
  }
});

describe('TestProcessServiceCreateOrUpdate', () => {
  it('SVC-34: If updating a valid service', async () => {
    const h = newController({ nodes: [node('node1')] });
    h.controller.cache.getOrCreate('validKey');
    await expect(
      h.controller.processServiceCreateOrUpdate(newService('sync-test-name', 'LoadBalancer'), 'validKey'),
    ).resolves.toBeUndefined();
  });
  it('SVC-35: If Updating Loadbalancer IP', async () => {
    const h = newController({ nodes: [node('node1')] });
    const svc = newService('sync-test-name', 'LoadBalancer', { spec: { loadBalancerIP: '192.168.1.1' } });
    h.services.add(svc);
    expect(h.serviceQueue.added).toEqual(['default/sync-test-name']);
    h.controller.cache.getOrCreate('default/sync-test-name').state = svc;
    const updated = structuredClone(svc);
    updated.spec!.loadBalancerIP = '192.168.1.11';
    await expect(h.controller.processServiceCreateOrUpdate(updated, 'default/sync-test-name')).resolves.toBeUndefined();
    expect(h.controller.cache.get('default/sync-test-name')?.state?.spec?.loadBalancerIP).toBe('192.168.1.11');
  });
  it('a UID change deletes the old load balancer first (deleted and re-created without finalizer)', async () => {
    const h = newController({ nodes: [node('node1')] });
    const old = newService('recreated', 'LoadBalancer');
    h.controller.cache.getOrCreate(key(old)).state = old;
    const recreated = newService('recreated', 'LoadBalancer', { metadata: { uid: 'new-uid' } });
    await h.controller.processServiceCreateOrUpdate(recreated, key(recreated));
    expect(h.cloud.calls.slice(0, 2)).toEqual(['delete', 'create']);
    expect(h.recorder.lines[0]).toBe('Normal DeletingLoadBalancer Deleting load balancer');
  });
  it('the cache entry is removed after a successful delete path, and kept after a failure', async () => {
    const h = newController();
    const svc = newService('gone', 'ClusterIP');
    await h.controller.processServiceCreateOrUpdate(svc, key(svc));
    expect(h.controller.cache.get(key(svc))).toBeUndefined();
    const failing = withFinalizer(newService('failing', 'ClusterIP'));
    h.cloud.exists = true;
    h.cloud.err = new Error('cloud down');
    await expect(h.controller.processServiceCreateOrUpdate(failing, key(failing))).rejects.toThrow(
      'failed to check if load balancer exists before cleanup: cloud down',
    );
    expect(h.controller.cache.get(key(failing))?.state).toBe(failing);
  });
});

describe('work cut off by the controller stopping', () => {
  it('an ensure or a delete aborted by the signal fails without a Warning Event on the Service', async () => {
    const h = newController({ nodes: [node('node1')] });
    h.cloud.faults.setLatency(['ensureLoadBalancer', 'ensureLoadBalancerDeleted'], 60_000);
    const stop = new AbortController();
    const svc = withFinalizer(newService('stopping', 'LoadBalancer'));
    const ensuring = h.controller.processServiceCreateOrUpdate(svc, key(svc), stop.signal);
    const gone = withFinalizer(newService('stopping-gone', 'ClusterIP'));
    h.cloud.exists = true;
    const deleting = h.controller.processServiceCreateOrUpdate(gone, key(gone), stop.signal);
    await eventuallyValue(() => h.cloud.callCount('ensureLoadBalancerDeleted') > 0, 'the delete to be in flight');
    stop.abort();
    await expect(ensuring).rejects.toThrow('This operation was aborted');
    await expect(deleting).rejects.toThrow('This operation was aborted');
    expect(h.recorder.lines.filter((l) => l.startsWith('Warning'))).toEqual([]);
  });
});

describe('TestProcessServiceCreateOrUpdateK8sError', () => {
  it('SVC-36: conflict error', async () => {
    const h = newController({ nodes: [node('node1')] });
    const svc = withFinalizer(newService('svc-k8s-err', 'LoadBalancer'));
    // Go's conflict error text is the Status message, not client-node's "HTTP-Code: 409 …" dump.
    const text =
      'Operation cannot be fulfilled on services "svc-k8s-err": the object has been modified; please apply your changes to the latest version and try again';
    h.client.error = apiError(409, 'Conflict', text);
    const got = await h.controller.processServiceCreateOrUpdate(svc, key(svc)).catch((e: unknown) => e);
    expect((got as Error).message).toBe(`failed to update load balancer status: ${text}`);
    expect(h.recorder.lines.some((e) => e.includes('Error syncing load balancer'))).toBe(true);
    expect(h.recorder.lines.at(-1)).toBe(
      `Warning SyncLoadBalancerFailed Error syncing load balancer: failed to update load balancer status: ${text}`,
    );
  });
  it('SVC-37: not found error', async () => {
    const h = newController({ nodes: [node('node1')] });
    const svc = withFinalizer(newService('svc-k8s-err', 'LoadBalancer'));
    h.client.error = apiError(404, 'NotFound', 'services "svc-k8s-err" not found');
    await expect(h.controller.processServiceCreateOrUpdate(svc, key(svc))).resolves.toBeUndefined();
  });
});

describe('TestSyncService', () => {
  it('SVC-38: if an invalid service name is synced', async () => {
    const h = newController();
    await expect(h.controller.syncService('invalid/key/string')).rejects.toThrow(
      'unexpected key format: "invalid/key/string"',
    );
    expect(h.controller.cache.get('invalid/key/string')).toBeUndefined();
  });
  it('SVC-39: if valid service', async () => {
    const h = newController();
    const svc = newService('external-balancer', 'LoadBalancer');
    svc.metadata!.namespace = undefined;
    h.controller.cache.getOrCreate('external-balancer').state = svc;
    await expect(h.controller.syncService('external-balancer')).resolves.toBeUndefined();
    expect(h.controller.cache.get('external-balancer')).toBeUndefined();
    expect(h.cloud.calls).toEqual(['delete']);
  });
  it('a Service in the lister is processed from a copy, never the informer object', async () => {
    const h = newController({ nodes: [node('node1')] });
    const svc = newService('copied', 'LoadBalancer');
    h.services.set(svc);
    await h.controller.syncService(key(svc));
    expect(h.controller.cache.get(key(svc))?.state).not.toBe(svc);
    expect(h.controller.cache.get(key(svc))?.state).toEqual(svc);
    expect(h.cloud.ensureCalls[0]!.service).not.toBe(svc);
  });
});

describe('TestProcessServiceDeletion', () => {
  it('SVC-40: If a non-existent service is deleted', async () => {
    const h = newController();
    await expect(h.controller.processServiceDeletion('external-balancer')).resolves.toBeUndefined();
    expect(h.cloud.calls).toEqual([]);
  });
  it('SVC-41: If cloudprovided failed to delete the service', async () => {
    const h = newController();
    h.controller.cache.getOrCreate('external-balancer').state = newService('external-balancer', 'LoadBalancer');
    const err = new Error('error Deleting the Loadbalancer');
    h.cloud.err = err;
    const got = await h.controller.processServiceDeletion('external-balancer').catch((e: unknown) => e);
    expect(got).toBe(err);
    expect((got as Error).message).toBe('error Deleting the Loadbalancer');
    expect(h.controller.cache.get('external-balancer')).toBeDefined();
    expect(h.recorder.lines).toEqual([
      'Normal DeletingLoadBalancer Deleting load balancer',
      'Warning DeleteLoadBalancerFailed Error deleting load balancer: error Deleting the Loadbalancer',
    ]);
  });
  it('SVC-42: If delete was successful', async () => {
    const h = newController();
    h.controller.cache.getOrCreate('external-balancer').state = newService('external-balancer', 'LoadBalancer');
    await expect(h.controller.processServiceDeletion('external-balancer')).resolves.toBeUndefined();
    expect(h.controller.cache.get('external-balancer')).toBeUndefined();
    expect(h.recorder.lines.at(-1)).toBe('Normal DeletedLoadBalancer Deleted load balancer');
  });
});

describe('TestSlowNodeSync', () => {
  it('SVC-47: a node sync stuck on one service does not later shrink a service ensured with newer nodes', async () => {
    const service1 = newService('service1', 'LoadBalancer');
    const service2 = newService('service2', 'LoadBalancer');
    const h = newController({ services: [service1, service2], nodes: [node('node1'), node('node2')] });
    for (const s of [service1, service2]) h.controller.cache.getOrCreate(key(s)).state = s;

    let releaseUpdate!: () => void;
    const updateReleased = new Promise<void>((r) => {
      releaseUpdate = r;
    });
    let syncOther!: (name: string) => void;
    const otherToSync = new Promise<string>((r) => {
      syncOther = r;
    });
    h.cloud.updateCallCb = async (call) => {
      syncOther(call.service.metadata!.name === 'service1' ? 'service2' : 'service1');
      await updateReleased;
    };
    h.cloud.ensureCallCb = () => releaseUpdate();

    const nodeSync = h.controller.syncNodes(1);
    const other = await otherToSync;
    h.nodes.add(node('node3'));
    expect(h.nodes.lister.list()).toHaveLength(3);
    await h.controller.syncService(`default/${other}`);
    await nodeSync;

    expect(h.cloud.updateCalls).toHaveLength(1);
    expect(names(h.cloud.updateCalls[0]!.hosts)).toEqual(['node1', 'node2']);
    expect(h.cloud.ensureCalls).toHaveLength(1);
    expect(names(h.cloud.ensureCalls[0]!.hosts)).toEqual(['node1', 'node2', 'node3']);
  });
});

describe('last synced node sets of forgotten Services (decision 0202)', () => {
  it('a Service deleted while a node sync holds its old state is not updated when its nodes did not change (as upstream)', async () => {
    const first = newService('first', 'LoadBalancer');
    const gone = withFinalizer(newService('gone', 'LoadBalancer'));
    const nodes = [node('node1'), node('node2')];
    const h = newController({ services: [first, gone], nodes });
    for (const s of [first, gone]) h.controller.cache.getOrCreate(key(s)).state = structuredClone(s);
    // `first` has a stale node set, so the node sync updates it (and blocks there); `gone` is up to date.
    h.controller.lastSyncedNodes.set(key(first), [nodes[0]!]);
    h.controller.lastSyncedNodes.set(key(gone), nodes);
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let blocked!: () => void;
    const isBlocked = new Promise<void>((r) => {
      blocked = r;
    });
    h.cloud.updateCallCb = async () => {
      blocked();
      await released;
    };
    const nodeSync = h.controller.syncNodes(1);
    await isBlocked;
    // Meanwhile `gone` is deleted through its finalizer: the load balancer is deleted and the key forgotten.
    const deleting = structuredClone(gone);
    deleting.metadata!.deletionTimestamp = new Date();
    h.services.set(deleting);
    h.cloud.exists = true;
    await h.controller.syncService(key(gone));
    expect(h.cloud.calls).toContain('delete');
    expect(h.controller.cache.get(key(gone))).toBeUndefined();
    release();
    expect((await nodeSync).size).toBe(0);
    // Upstream still holds `gone`'s last synced nodes, finds them unchanged and makes no call on the
    // deleted load balancer (a provider whose update re-creates would otherwise leak it).
    expect(h.cloud.updateCalls.map((c) => c.service.metadata!.name)).toEqual(['first']);
    // Once no node sync runs, the forgotten key's node set is dropped (bounded memory).
    expect(h.controller.lastSyncedNodes.has(key(gone))).toBe(false);
    expect(h.controller.lastSyncedNodes.has(key(first))).toBe(true);
  });

  it('a key forgotten while no node sync runs drops its node set at once', async () => {
    const h = newController({ nodes: [node('node1')] });
    const svc = newService('lb', 'LoadBalancer');
    h.services.set(svc);
    await h.controller.syncService(key(svc));
    expect(h.controller.lastSyncedNodes.has(key(svc))).toBe(true);
    const plain = structuredClone(svc);
    plain.spec!.type = 'ClusterIP';
    h.services.set(plain);
    await h.controller.syncService(key(svc));
    expect(h.controller.cache.get(key(svc))).toBeUndefined();
    expect(h.controller.lastSyncedNodes.has(key(svc))).toBe(false);
  });
});

describe('TestAddFinalizer, TestRemoveFinalizer, TestPatchStatus', () => {
  it('SVC-69: no-op add finalizer', async () => {
    const h = newController();
    await h.controller.addFinalizer(withFinalizer(newService('s', 'LoadBalancer')));
    expect(h.client.actions).toHaveLength(0);
  });
  it('SVC-70: add finalizer', async () => {
    const h = newController();
    const svc = newService('s', 'LoadBalancer');
    svc.metadata!.finalizers = ['foo'];
    await h.controller.addFinalizer(svc);
    expect(h.client.actions).toHaveLength(1);
    expect(JSON.stringify(h.client.actions[0]!.patch)).toBe(
      `{"metadata":{"$setElementOrder/finalizers":["foo","${LOAD_BALANCER_CLEANUP_FINALIZER}"],"finalizers":["${LOAD_BALANCER_CLEANUP_FINALIZER}"]}}`,
    );
    expect(svc.metadata!.finalizers).toEqual(['foo']);
  });
  it('SVC-71: no-op remove finalizer', async () => {
    const h = newController();
    await h.controller.removeFinalizer(newService('s', 'LoadBalancer'));
    expect(h.client.actions).toHaveLength(0);
  });
  it('SVC-72: remove finalizer', async () => {
    const h = newController();
    await h.controller.removeFinalizer(withFinalizer(newService('s', 'LoadBalancer')));
    expect(h.client.actions).toHaveLength(1);
    expect(h.client.actions[0]!.patch).toEqual({ metadata: { finalizers: null } });
  });
  const status = (ip?: string) => (ip ? { ingress: [{ ip }] } : {});
  const cases: [string, string | undefined, string | undefined, number][] = [
    ['SVC-73: no-op add status', '8.8.8.8', '8.8.8.8', 0],
    ['SVC-74: add status', undefined, '8.8.8.8', 1],
    ['SVC-75: no-op clear status', undefined, undefined, 0],
    ['SVC-76: clear status', '8.8.8.8', undefined, 1],
  ];
  for (const [name, from, to, patches] of cases) {
    it(name, async () => {
      const h = newController();
      const svc = newService('s', 'LoadBalancer', { status: { loadBalancer: status(from) } });
      await h.controller.patchStatus(svc, status(from), status(to));
      expect(h.client.actions).toHaveLength(patches);
      if (patches)
        expect(h.client.actions[0]!.patch).toEqual({
          status: { loadBalancer: { ingress: to ? [{ ip: to }] : null } },
        });
    });
  }
});

describe('TestServiceQueueDelay', () => {
  const run = async (err: Error | undefined) => {
    const svc = newService('external-balancer', 'LoadBalancer');
    const h = newController({ services: [svc], nodes: [node('node1')] });
    if (err) h.cloud.faults.injectError('ensureLoadBalancer', { error: err });
    h.serviceQueue.add('default/external-balancer');
    expect(await processNextWorkItem(h.controller.serviceWorker(), new AbortController().signal)).toBe(true);
    expect(h.serviceQueue.doneKeys).toEqual(['default/external-balancer']);
    return h;
  };
  it('SVC-138: processing successful', async () => {
    const h = await run(undefined);
    expect(h.serviceQueue.numRequeues('default/external-balancer')).toBe(0);
    expect(h.serviceQueue.forgotten).toEqual(['default/external-balancer']);
    expect(h.serviceQueue.addedAfter).toEqual([]);
  });
  it('SVC-139: regular error', async () => {
    const h = await run(new Error('something went wrong'));
    expect(h.serviceQueue.numRequeues('default/external-balancer')).toBe(1);
    expect(h.serviceQueue.addedAfter).toEqual([]);
  });
  it('SVC-140: retry error', async () => {
    const h = await run(new RetryError('LB create in progress', 42_000));
    expect(h.serviceQueue.numRequeues('default/external-balancer')).toBe(0);
    expect(h.serviceQueue.forgotten).toEqual([]);
    expect(h.serviceQueue.addedAfter).toEqual([{ key: 'default/external-balancer', delayMs: 42_000 }]);
  });
  it('upstream quirk 7 in docs/upstream-quirks.md: a RetryError from the delete path goes through exponential backoff', async () => {
    const svc = withFinalizer(newService('external-balancer', 'ClusterIP'));
    const h = newController({ services: [svc] });
    h.cloud.exists = true;
    h.cloud.faults.injectError('ensureLoadBalancerDeleted', { error: new RetryError('deleting', 42_000) });
    h.serviceQueue.add('default/external-balancer');
    await processNextWorkItem(h.controller.serviceWorker(), new AbortController().signal);
    expect(h.serviceQueue.addedAfter).toEqual([]);
    expect(h.serviceQueue.rateLimited).toEqual(['default/external-balancer']);
    expect(h.recorder.lines.at(-1)).toBe(
      'Warning SyncLoadBalancerFailed Error syncing load balancer: failed to delete load balancer: deleting',
    );
  });
  it('the service worker returns false once the queue is shut down', async () => {
    const h = newController();
    h.serviceQueue.shutDown();
    expect(await processNextWorkItem(h.controller.serviceWorker(), new AbortController().signal)).toBe(false);
  });
});

describe('ImplementedElsewhere (upstream quirk 8 in docs/upstream-quirks.md)', () => {
  it('from ensureLoadBalancer: finalizer added, no status patch, no EnsuredLoadBalancer, no error', async () => {
    const h = newController({ nodes: [node('node1')] });
    h.cloud.faults.injectError('ensureLoadBalancer', { error: new ImplementedElsewhereError() });
    const svc = newService('elsewhere', 'LoadBalancer');
    expect(await h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).toBe('ensure');
    expect(h.client.actions).toHaveLength(1);
    expect(h.client.actions[0]!.patch).toEqual({
      metadata: { finalizers: [LOAD_BALANCER_CLEANUP_FINALIZER] },
    });
    expect(h.recorder.lines).toEqual(['Normal EnsuringLoadBalancer Ensuring load balancer']);
  });
  it('a wrapped ImplementedElsewhere is not recognised (identity comparison)', async () => {
    const h = newController({ nodes: [node('node1')] });
    const wrapped = new Error('wrapped', { cause: new ImplementedElsewhereError() });
    h.cloud.faults.injectError('ensureLoadBalancer', { error: wrapped });
    const svc = newService('elsewhere', 'LoadBalancer');
    await expect(h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).rejects.toThrow(
      'failed to ensure load balancer: wrapped',
    );
  });
  it('from ensureLoadBalancerDeleted on the finalizer path: ignored, the finalizer is removed', async () => {
    const h = newController();
    h.cloud.exists = true;
    h.cloud.faults.injectError('ensureLoadBalancerDeleted', { error: new ImplementedElsewhereError() });
    const svc = withFinalizer(newService('elsewhere', 'NodePort'));
    expect(await h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).toBe('delete');
    expect(h.client.actions[0]!.patch).toEqual({ metadata: { finalizers: null } });
    expect(h.recorder.lines.at(-1)).toBe('Normal DeletedLoadBalancer Deleted load balancer');
  });
  it('from ensureLoadBalancerDeleted on the legacy path: an error', async () => {
    const h = newController();
    const err = new ImplementedElsewhereError();
    h.cloud.faults.injectError('ensureLoadBalancerDeleted', { error: err });
    h.controller.cache.getOrCreate('default/gone').state = newService('gone', 'LoadBalancer');
    await expect(h.controller.processServiceDeletion('default/gone')).rejects.toBe(err);
    expect(h.recorder.lines.at(-1)).toBe(
      'Warning DeleteLoadBalancerFailed Error deleting load balancer: implemented by alternate to cloud provider',
    );
  });
  it('from updateLoadBalancer: success, no event', async () => {
    const h = newController({ nodes: [node('node1')] });
    h.cloud.faults.injectError('updateLoadBalancer', { error: new ImplementedElsewhereError() });
    const svc = newService('elsewhere', 'LoadBalancer');
    await expect(h.controller.lockedUpdateLoadBalancerHosts(svc, [node('node1')])).resolves.toBeUndefined();
    expect(h.recorder.lines).toEqual([]);
  });
});

describe('ensure path details', () => {
  it('no qualifying nodes: UnAvailableLoadBalancer warning, and ensure is still called with none', async () => {
    const h = newController({
      nodes: [node('node1', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': 'true' } })],
    });
    const svc = newService('lonely', 'LoadBalancer');
    await h.controller.syncLoadBalancerIfNeeded(svc, key(svc));
    expect(h.recorder.lines).toContain('Warning UnAvailableLoadBalancer There are no available nodes for LoadBalancer');
    expect(h.cloud.ensureCalls[0]!.hosts).toEqual([]);
  });
  it('NotReady and uninitialized nodes stay in the load balancer (upstream quirk 1 in docs/upstream-quirks.md)', async () => {
    const h = newController({
      nodes: [
        node('ready'),
        node('notready', { ready: 'False' }),
        node('uninit', {
          taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', effect: 'NoSchedule' }],
        }),
        node('autoscaled', { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] }),
      ],
    });
    const svc = newService('lb', 'LoadBalancer');
    await h.controller.syncLoadBalancerIfNeeded(svc, key(svc));
    expect(names(h.cloud.ensureCalls[0]!.hosts)).toEqual(['notready', 'ready', 'uninit']);
  });
  it('lastSyncedNodes is written before the ensure call, even when it fails (upstream quirk 4 in docs/upstream-quirks.md)', async () => {
    const h = newController({ nodes: [node('node1'), node('node2')] });
    h.cloud.err = new Error('zone lookup failed');
    const svc = newService('lb', 'LoadBalancer');
    await expect(h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).rejects.toThrow(
      'failed to ensure load balancer: zone lookup failed',
    );
    expect(names(h.controller.lastSyncedNodes.get(key(svc))!)).toEqual(['node1', 'node2']);
    // The finalizer was added before the failing cloud call and is not lost.
    expect(h.client.actions.map((a) => a.patch)).toEqual([
      { metadata: { finalizers: [LOAD_BALANCER_CLEANUP_FINALIZER] } },
    ]);
  });
  it('every Service keeps the same last synced node set, and a provider may change the array it is given', async () => {
    const h = newController({ nodes: [node('b'), node('a')] });
    const balancer = h.cloud.loadBalancer()!;
    const given: string[][] = [];
    balancer.ensureLoadBalancer = async (_cluster, _svc, nodes) => {
      given.push(nodes.map((n) => n.metadata!.name!));
      nodes.sort((x, y) => (x.metadata!.name! < y.metadata!.name! ? -1 : 1));
      nodes.length = 0;
      return { ingress: [{ ip: '10.0.0.1' }] };
    };
    const first = newService('first', 'LoadBalancer');
    const second = newService('second', 'LoadBalancer');
    await h.controller.syncLoadBalancerIfNeeded(first, key(first));
    await h.controller.syncLoadBalancerIfNeeded(second, key(second));
    expect(given).toEqual([
      ['b', 'a'],
      ['b', 'a'],
    ]);
    // One array for both: at 50,000 Nodes and 2,500 Services a copy each would hold about 1 GB.
    expect(h.controller.lastSyncedNodes.get(key(second))).toBe(h.controller.lastSyncedNodes.get(key(first)));
    expect(h.controller.lastSyncedNodes.get(key(first))!.map((n) => n.metadata!.name)).toEqual(['b', 'a']);
  });
  it('a nil status from ensureLoadBalancer is an error', async () => {
    const h = newController({ nodes: [node('node1')] });
    const balancer = h.cloud.loadBalancer()!;
    balancer.ensureLoadBalancer = async () => undefined as never;
    const svc = newService('lb', 'LoadBalancer');
    await expect(h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).rejects.toThrow(
      'service status returned by EnsureLoadBalancer is nil',
    );
  });
  it('an empty status from ensureLoadBalancer is a success that clears the ingress (only nil is an error)', async () => {
    const h = newController({ nodes: [node('node1')] });
    const balancer = h.cloud.loadBalancer()!;
    balancer.ensureLoadBalancer = async () => ({});
    const svc = withFinalizer(
      newService('lb', 'LoadBalancer', { status: { loadBalancer: { ingress: [{ ip: '8.8.8.8' }] } } }),
    );
    expect(await h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).toBe('ensure');
    expect(h.recorder.lines).toEqual([
      'Normal EnsuringLoadBalancer Ensuring load balancer',
      'Normal EnsuredLoadBalancer Ensured load balancer',
    ]);
    expect(h.client.actions.map((a) => a.patch)).toEqual([{ status: { loadBalancer: { ingress: null } } }]);
    // Empty before and after: nothing to write.
    const fresh = withFinalizer(newService('fresh', 'LoadBalancer'));
    await h.controller.syncLoadBalancerIfNeeded(fresh, key(fresh));
    expect(h.client.actions).toHaveLength(1);
  });
  it('finalizer patch failures are reported with upstream wording', async () => {
    const h = newController();
    h.client.error = apiError(500, 'InternalError', 'Internal error occurred: boom');
    const svc = newService('lb', 'LoadBalancer');
    const got = await h.controller.syncLoadBalancerIfNeeded(svc, key(svc)).catch((e: unknown) => e);
    expect((got as Error).message).toBe('failed to add load balancer cleanup finalizer: Internal error occurred: boom');
    const withIt = withFinalizer(newService('gone', 'ClusterIP'));
    h.client.error = apiError(404, 'NotFound', 'services "gone" not found');
    const removal = await h.controller.syncLoadBalancerIfNeeded(withIt, key(withIt)).catch((e: unknown) => e);
    expect((removal as Error).message).toBe(
      'failed to remove load balancer cleanup finalizer: services "gone" not found',
    );
    expect(h.cloud.calls).toEqual([]);
  });
});

describe('lockedUpdateLoadBalancerHosts', () => {
  const hosts = Array.from({ length: 22 }, (_, i) => node(`node-${String(i).padStart(2, '0')}`));
  it('records UpdatedLoadBalancer on success and UnAvailableLoadBalancer with no hosts', async () => {
    const h = newController();
    const svc = newService('lb', 'LoadBalancer');
    await h.controller.lockedUpdateLoadBalancerHosts(svc, hosts);
    await h.controller.lockedUpdateLoadBalancerHosts(svc, []);
    expect(h.recorder.lines).toEqual([
      'Normal UpdatedLoadBalancer Updated load balancer with new hosts',
      'Warning UnAvailableLoadBalancer There are no available nodes for LoadBalancer',
    ]);
  });
  it('a failure while the load balancer exists: UpdateLoadBalancerFailed with at most 20 names, and the error', async () => {
    const h = newController();
    h.cloud.exists = true;
    const err = new Error('backend pool full');
    h.cloud.faults.injectError('updateLoadBalancer', { error: err });
    const svc = newService('lb', 'LoadBalancer');
    await expect(h.controller.lockedUpdateLoadBalancerHosts(svc, hosts)).rejects.toBe(err);
    const listed = hosts
      .slice(0, 20)
      .map((n) => n.metadata!.name)
      .join(' ');
    expect(h.recorder.lines).toEqual([
      `Warning UpdateLoadBalancerFailed Error updating load balancer with new hosts [${listed} <2 more>] [node names limited, total number of nodes: 22], error: backend pool full`,
    ]);
  });
  it('a failure when the load balancer no longer exists counts as success', async () => {
    const h = newController();
    h.cloud.exists = false;
    h.cloud.faults.injectError('updateLoadBalancer', { error: new Error('no such LB') });
    await expect(
      h.controller.lockedUpdateLoadBalancerHosts(newService('lb', 'LoadBalancer'), hosts),
    ).resolves.toBeUndefined();
    expect(h.recorder.lines).toEqual([]);
  });
  it('updateLoadBalancer is called without the controller signal (upstream context.TODO, upstream quirk 11 in docs/upstream-quirks.md)', async () => {
    const h = newController();
    const seen: (AbortSignal | undefined)[] = [];
    const balancer = h.cloud.loadBalancer()!;
    const original = balancer.updateLoadBalancer.bind(balancer);
    balancer.updateLoadBalancer = (c, s, n, signal) => {
      seen.push(signal);
      return original(c, s, n, signal);
    };
    await h.controller.lockedUpdateLoadBalancerHosts(newService('lb', 'LoadBalancer'), hosts);
    expect(seen).toEqual([undefined]);
  });
});

describe('informer handlers', () => {
  it('service add: enqueued when it wants a load balancer or needs cleanup', () => {
    const h = newController();
    h.services.add(newService('lb', 'LoadBalancer'));
    h.services.add(newService('plain', 'ClusterIP'));
    h.services.add(withFinalizer(newService('leftover', 'ClusterIP')));
    h.services.add(newService('classed', 'LoadBalancer', { spec: { loadBalancerClass: 'other' } }));
    expect(h.serviceQueue.added).toEqual(['default/lb', 'default/leftover']);
  });
  it('service update: enqueued on needsUpdate or needsCleanup only; resyncs of settled services are ignored', () => {
    const h = newController();
    const svc = newService('lb', 'LoadBalancer');
    h.services.update(svc, structuredClone(svc));
    expect(h.serviceQueue.added).toEqual([]);
    const labelled = structuredClone(svc);
    labelled.metadata!.labels = { a: 'b' };
    h.services.update(svc, labelled);
    expect(h.serviceQueue.added).toEqual([]);
    const moved = structuredClone(svc);
    moved.spec!.loadBalancerIP = '10.0.0.1';
    h.services.update(svc, moved);
    expect(h.serviceQueue.added).toEqual(['default/lb']);
    const deleting = withFinalizer(structuredClone(svc));
    deleting.metadata!.deletionTimestamp = new Date();
    h.serviceQueue.added.length = 0;
    h.services.update(deleting, deleting);
    expect(h.serviceQueue.added).toEqual(['default/lb']);
  });
  it('service delete: no handler (deletion goes through the finalizer)', () => {
    const h = newController();
    h.services.remove(newService('lb', 'LoadBalancer'));
    expect(h.serviceQueue.added).toEqual([]);
  });
  it('node add, delete (including tombstones) and exclusion/providerID updates enqueue the single node key', () => {
    const h = newController();
    const n = node('n1');
    h.nodes.add(n);
    h.nodes.update(n, node('n1', { ready: 'False' }));
    h.nodes.update(n, node('n1', { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] }));
    h.nodes.update(n, node('n1', { deletionTimestamp: new Date() }));
    expect(h.nodeQueue.added).toEqual([NODE_SYNC_KEY]);
    h.nodes.update(n, node('n1', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': 'true' } }));
    h.nodes.update(n, node('n1', { providerID: 'other' }));
    h.nodes.remove(n);
    h.nodes.remove(node('n2'), { tombstone: true });
    expect(h.nodeQueue.added).toEqual(Array(5).fill(NODE_SYNC_KEY));
    // A burst coalesces into one pending key.
    expect(h.nodeQueue.pending).toEqual([NODE_SYNC_KEY]);
  });
});

describe('node worker', () => {
  it('a node sync requeues failed services with a plain add and forgets the node key', async () => {
    const svc = newService('lb', 'LoadBalancer');
    const h = newController({ nodes: [node('node1')] });
    h.controller.cache.getOrCreate(key(svc)).state = svc;
    h.cloud.exists = true;
    h.cloud.err = new Error('update failed');
    h.nodeQueue.add(NODE_SYNC_KEY);
    expect(await processNextWorkItem(h.controller.nodeWorker(1), new AbortController().signal)).toBe(true);
    expect(h.serviceQueue.added).toEqual(['default/lb']);
    expect(h.serviceQueue.rateLimited).toEqual([]);
    expect(h.nodeQueue.forgotten).toEqual([NODE_SYNC_KEY]);
    expect(h.nodeQueue.doneKeys).toEqual([NODE_SYNC_KEY]);
  });
  it('services in the cache that do not want a load balancer are skipped', async () => {
    const h = newController({ nodes: [node('node1')] });
    h.controller.cache.getOrCreate('default/np').state = newService('np', 'NodePort');
    expect((await h.controller.syncNodes(1)).size).toBe(0);
    expect(h.cloud.updateCalls).toEqual([]);
  });
});

describe('start-up order (decision 0204)', () => {
  it('the node sync queued by the initial Node adds runs before any Service is cached: no update at start', async () => {
    const services = ['a', 'b', 'c'].map((n) => newService(n, 'LoadBalancer'));
    const h = newController({ services, nodes: [node('node1'), node('node2')], concurrentServiceSyncs: 3 });
    // As after the informers' initial lists: every Service key and the node key are queued.
    for (const s of services) h.serviceQueue.add(key(s));
    h.nodeQueue.add(NODE_SYNC_KEY);
    const ac = new AbortController();
    const running = h.controller.run(ac.signal);
    // Finalizer and status patches of all three.
    await eventuallyValue(() => h.client.actions.length >= 6, { timeoutMs: 5_000, intervalMs: 10 });
    ac.abort();
    await running;
    expect(h.cloud.ensureCalls.map((c) => c.service.metadata!.name).sort()).toEqual(['a', 'b', 'c']);
    expect(h.cloud.updateCalls).toEqual([]);
    expect(h.recorder.lines.filter((e) => e.includes('UpdatedLoadBalancer'))).toEqual([]);
  });

  it('a Service that has the finalizer is cached together with its last synced nodes (no wait in between)', async () => {
    const svc = withFinalizer(newService('lb', 'LoadBalancer'));
    const h = newController({ services: [svc], nodes: [node('node1')] });
    const sync = h.controller.syncService(key(svc));
    // Synchronously, before the cloud answers: a node sync starting now compares with the set being ensured.
    expect(h.controller.cache.get(key(svc))?.state).toBeDefined();
    expect(names(h.controller.lastSyncedNodes.get(key(svc)) ?? [])).toEqual(['node1']);
    const nodeSync = h.controller.syncNodes(1);
    await Promise.all([sync, nodeSync]);
    expect(h.cloud.ensureCalls).toHaveLength(1);
    expect(h.cloud.updateCalls).toEqual([]);
  });
});

describe('beyond upstream options', () => {
  it('loadBalancerClass: the configured class is ensured and class-less Services are left alone', async () => {
    const h = newController({ nodes: [node('node1')], loadBalancerClass: 'example.com/lb' });
    const classed = newService('classed', 'LoadBalancer', { spec: { loadBalancerClass: 'example.com/lb' } });
    const plain = newService('plain', 'LoadBalancer');
    h.services.add(classed);
    h.services.add(plain);
    expect(h.serviceQueue.added).toEqual(['default/classed']);
    expect(await h.controller.syncLoadBalancerIfNeeded(classed, key(classed))).toBe('ensure');
    expect(await h.controller.syncLoadBalancerIfNeeded(plain, key(plain))).toBe('delete');
    expect(h.cloud.ensureCalls.map((c) => c.service.metadata!.name)).toEqual(['classed']);
  });
  it('loadBalancerClass: a LoadBalancer Service of another class keeps its finalizer and load balancer (decision 0203)', async () => {
    const h = newController({ nodes: [node('node1')], loadBalancerClass: 'example.com/lb' });
    h.cloud.exists = true;
    // Class-less: served by the default controller, which uses the same cleanup finalizer.
    const theirs = withFinalizer(newService('theirs', 'LoadBalancer'));
    const deleting = structuredClone(theirs);
    deleting.metadata!.deletionTimestamp = new Date();
    h.services.add(theirs);
    h.services.update(theirs, deleting);
    h.controller.resyncServices();
    expect(h.serviceQueue.added).toEqual([]);
    // Even if its key comes up (a re-created name), nothing is called and its finalizer is untouched.
    await h.controller.syncService(key(deleting));
    const other = withFinalizer(newService('other', 'LoadBalancer', { spec: { loadBalancerClass: 'x' } }));
    other.metadata!.deletionTimestamp = new Date();
    h.services.set(other);
    await h.controller.syncService(key(other));
    expect(h.cloud.calls).toEqual([]);
    expect(h.client.actions).toEqual([]);
    expect(h.recorder.lines).toEqual([]);
    // Its own class is still cleaned up through the finalizer.
    const mine = withFinalizer(newService('mine', 'LoadBalancer', { spec: { loadBalancerClass: 'example.com/lb' } }));
    const mineDeleting = structuredClone(mine);
    mineDeleting.metadata!.deletionTimestamp = new Date();
    h.services.update(mine, mineDeleting);
    expect(h.serviceQueue.added).toEqual(['default/mine']);
    await h.controller.syncService(key(mine));
    expect(h.cloud.calls).toEqual(['delete']);
    expect(h.client.actions[0]!.patch).toEqual({ metadata: { finalizers: null } });
  });
  it('upstream (no class option): a Service with any class that is being deleted is still cleaned up', async () => {
    const h = newController();
    const classed = withFinalizer(newService('c', 'LoadBalancer', { spec: { loadBalancerClass: 'x' } }));
    const deleting = structuredClone(classed);
    deleting.metadata!.deletionTimestamp = new Date();
    h.services.update(classed, deleting);
    expect(h.serviceQueue.added).toEqual(['default/c']);
    expect(await h.controller.syncLoadBalancerIfNeeded(deleting, key(deleting))).toBe('delete');
    expect(h.client.actions[0]!.patch).toEqual({ metadata: { finalizers: null } });
  });
  it('nodeOwnership: rejected nodes are never hosts and their events are ignored', async () => {
    const owned = (n: V1Node) => (n.spec?.providerID ?? '').startsWith('fake://');
    const h = newController({
      nodes: [node('mine', { providerID: 'fake://1' }), node('theirs', { providerID: 'other://2' })],
      nodeOwnership: owned,
    });
    const svc = newService('lb', 'LoadBalancer');
    await h.controller.syncLoadBalancerIfNeeded(svc, key(svc));
    expect(names(h.cloud.ensureCalls[0]!.hosts)).toEqual(['mine']);
    h.nodes.add(node('foreign', { providerID: 'other://3' }));
    expect(h.nodeQueue.added).toEqual([]);
    h.nodes.add(node('mine2', { providerID: 'fake://4' }));
    expect(h.nodeQueue.added).toEqual([NODE_SYNC_KEY]);
  });
});

describe('construction', () => {
  it('refuses a provider without the LoadBalancer facet', () => {
    const cloud = new FakeCloud({ disableLoadBalancers: true });
    expect(
      () =>
        new ServiceController({
          cloud,
          client: new RecordingClient(),
          informers: { services: () => new MemoryInformer<V1Service>(), nodes: () => new MemoryInformer<V1Node>() },
          recorder: new RecordingEventRecorder(),
          serviceQueue: new RecordingQueue(),
          nodeQueue: new RecordingQueue(),
          config: { clusterName: 'c' },
        }),
    ).toThrow('the cloud provider does not support external load balancers');
  });
  it('run() waits for both caches, then works the queues until aborted, and refuses bad worker counts', async () => {
    const svc = newService('lb', 'LoadBalancer');
    const h = newController({ services: [svc], nodes: [node('node1')], concurrentServiceSyncs: 2 });
    h.nodes.synced = false;
    const ac = new AbortController();
    const bad = newController({ services: [svc], concurrentServiceSyncs: -1 });
    await expect(bad.controller.run(ac.signal)).rejects.toThrow(/workers/);
    const running = h.controller.run(ac.signal);
    h.serviceQueue.add(key(svc));
    await new Promise((r) => setTimeout(r, 150));
    expect(h.cloud.ensureCalls).toHaveLength(0);
    h.nodes.synced = true;
    await eventuallyValue(() => h.cloud.ensureCalls.length > 0, { timeoutMs: 5_000, intervalMs: 20 });
    expect(h.cloud.ensureCalls).toHaveLength(1);
    const running_ = async () => {
      const m = await metricsRegistry.getSingleMetric('running_managed_controllers')!.get();
      return m.values.find((v) => v.labels.name === 'service' && v.labels.manager === 'cloud-controller-manager')
        ?.value;
    };
    expect(await running_()).toBe(1);
    ac.abort();
    await running;
    expect(await running_()).toBe(0);
    expect(h.services.handlers).toHaveLength(0);
  });
});

describe('serviceLbController descriptor', () => {
  const capturingLogger = () => {
    const logger = new RecordingLogger({ verbosity: 0 });
    return { logger, lines: logger.records };
  };
  const ctx = (cloud: FakeCloud, logger: Logger): ControllerContext => ({
    cloud,
    clients: {
      config: () => {
        throw new Error('no API in this test');
      },
      client: () => {
        throw new Error('no API in this test');
      },
    },
    informers: { nodes: () => new MemoryInformer<V1Node>(), services: () => new MemoryInformer<V1Service>() },
    config: { ...defaultCloudControllerConfig },
    signal: new AbortController().signal,
    logger,
  });

  it('names, alias and client name are upstream', () => {
    expect(serviceLbController.name).toBe('service-lb-controller');
    expect(serviceLbController.aliases).toEqual(['service']);
    expect(serviceLbController.clientName).toBe('service-controller');
    expect(serviceLbController.disabledByDefault).toBeFalsy();
  });

  it('a provider without the LoadBalancer facet: started false, with a log line, and no API use', async () => {
    const { logger, lines } = capturingLogger();
    const result = await serviceLbController.init(ctx(new FakeCloud({ disableLoadBalancers: true }), logger));
    expect(result).toEqual({
      started: false,
      reason: 'the cloud provider does not support external load balancers',
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toBe('Failed to start service controller');
    expect((lines[0]!.err as Error).message).toBe('the cloud provider does not support external load balancers');
  });

  it('a provider whose loadBalancer() returns null is treated as without the facet (not started, not fatal)', async () => {
    const { logger, lines } = capturingLogger();
    const cloud = new FakeCloud();
    cloud.loadBalancer = () => null as never;
    const result = await serviceLbController.init(ctx(cloud, logger));
    expect(result).toEqual({
      started: false,
      reason: 'the cloud provider does not support external load balancers',
    });
    expect(lines.map((l) => l.msg)).toEqual(['Failed to start service controller']);
  });

  it('a negative --concurrent-service-syncs is refused naming the flag', async () => {
    const { logger } = capturingLogger();
    const c = ctx(new FakeCloud(), logger);
    // The check is runController's, so the controller gets as far as its client.
    const clients = { ...c.clients, client: () => new RecordingClient() as never };
    await expect(
      serviceLbController.init({ ...c, clients, config: { ...c.config, concurrentServiceSyncs: -1 } }),
    ).rejects.toThrow(/--concurrent-service-syncs/);
  });
});

describe('metrics', () => {
  it('node syncs count UpdateLoadBalancer attempts and errors and observe both latencies', async () => {
    const value = async (name: string) => {
      const m = await metricsRegistry.getSingleMetric(name)!.get();
      // prom-client's typings give `type` as a numeric enum and no metricName; the objects carry both as strings.
      const values = m.values as Array<{ value: number; metricName?: string }>;
      const v = String(m.type) === 'histogram' ? values.find((x) => x.metricName === `${name}_count`) : values[0];
      return v?.value ?? 0;
    };
    const h = newController({ nodes: [node('node1')] });
    const svc = newService('metered', 'LoadBalancer');
    h.controller.cache.getOrCreate(key(svc)).state = svc;
    const syncs = await value('service_controller_loadbalancer_sync_total');
    const errors = await value('service_controller_nodesync_error_total');
    const nodeSyncs = await value('service_controller_nodesync_latency_seconds');
    const hostUpdates = await value('service_controller_update_loadbalancer_host_latency_seconds');
    await h.controller.syncNodes(1);
    h.nodes.add(node('node2'));
    h.cloud.exists = true;
    h.cloud.err = new Error('nope');
    await h.controller.syncNodes(1);
    expect(await value('service_controller_loadbalancer_sync_total')).toBe(syncs + 2);
    expect(await value('service_controller_nodesync_error_total')).toBe(errors + 1);
    expect(await value('service_controller_nodesync_latency_seconds')).toBe(nodeSyncs + 2);
    expect(await value('service_controller_update_loadbalancer_host_latency_seconds')).toBe(hostUpdates + 2);
    const hist = await metricsRegistry.getSingleMetric('service_controller_nodesync_latency_seconds')!.get();
    const les = (hist.values as Array<{ labels: Record<string, unknown>; metricName?: string }>)
      .filter((v) => v.metricName?.endsWith('_bucket'))
      .map((v) => v.labels.le);
    expect(les.slice(0, 3)).toEqual([1, 2, 4]);
    expect(les).toContain(16384);
  });
});

describe('with the runtime Workqueue (service queue limiter 5 s … 300 s)', () => {
  const setup = (err: Error | undefined) => {
    const svc = newService('external-balancer', 'LoadBalancer');
    const services = new MemoryInformer<V1Service>();
    const nodes = new MemoryInformer<V1Node>();
    services.set(svc);
    nodes.set(node('node1'));
    const cloud = new FakeCloud();
    if (err) cloud.faults.injectError('ensureLoadBalancer', { error: err });
    const serviceQueue = new Workqueue<string>({ rateLimiter: serviceQueueRateLimiter<string>() });
    const controller = new ServiceController({
      cloud,
      client: new RecordingClient(),
      informers: { services: () => services, nodes: () => nodes },
      recorder: new RecordingEventRecorder(),
      serviceQueue,
      nodeQueue: new Workqueue<string>({ rateLimiter: serviceQueueRateLimiter<string>() }),
      config: { clusterName: 'test-cluster' },
    });
    serviceQueue.add('default/external-balancer');
    return { controller, serviceQueue };
  };
  it('SVC-139 (runtime queue): a regular error counts one requeue and waits the 5 s first step', async () => {
    const { controller, serviceQueue } = setup(new Error('boom'));
    await processNextWorkItem(controller.serviceWorker(), new AbortController().signal);
    expect(serviceQueue.numRequeues('default/external-balancer')).toBe(1);
    expect(serviceQueue.rateLimiter.when('probe')).toBe(5_000);
    await new Promise((r) => setTimeout(r, 100));
    expect(serviceQueue.len()).toBe(0);
    serviceQueue.shutDown();
  });
  it('SVC-140 (runtime queue): a RetryError requeues after its own delay without counting a requeue', async () => {
    const { controller, serviceQueue } = setup(new RetryError('LB create in progress', 50));
    await processNextWorkItem(controller.serviceWorker(), new AbortController().signal);
    expect(serviceQueue.numRequeues('default/external-balancer')).toBe(0);
    expect(serviceQueue.len()).toBe(0);
    await eventuallyValue(() => serviceQueue.len() === 1, { timeoutMs: 5_000, intervalMs: 10 });
    serviceQueue.shutDown();
  });
});

describe('a Service that got another class while the controller was away (decision 0051, found by chaos/)', () => {
  const classChanged = () =>
    withFinalizer(
      newService('moved', 'LoadBalancer', {
        spec: { type: 'LoadBalancer', loadBalancerClass: 'example.com/other', ports: [{ port: 80, protocol: 'TCP' }] },
        status: { loadBalancer: { ingress: [{ ip: '8.8.8.8' }] } },
      }),
    );

  it('is enqueued when seen (add, resync) and its load balancer is deleted, then the finalizer removed', async () => {
    const svc = classChanged();
    const h = newController({ services: [svc] });
    expect(needsCleanup(svc)).toBe(true);
    h.controller.resyncServices();
    expect(h.serviceQueue.added).toContain(key(svc));
    h.cloud.exists = true;
    expect(await h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).toBe('delete');
    expect(h.cloud.calls).toEqual(['delete']);
    expect(h.client.actions[0]!.patch).toEqual({ metadata: { finalizers: null } });
  });

  it("without a load balancer of ours, leaves the finalizer and the status alone (they may be another implementation's)", async () => {
    const svc = classChanged();
    const h = newController({ services: [svc] });
    h.cloud.exists = false;
    expect(await h.controller.syncLoadBalancerIfNeeded(svc, key(svc))).toBe('delete');
    expect(h.cloud.calls).toEqual([]);
    expect(h.client.actions).toEqual([]);
    expect(h.recorder.lines).toEqual([]);
  });

  it('with the loadBalancerClass option, keeps decision 0203: another class is never cleaned up', () => {
    const svc = classChanged();
    const h = newController({ services: [svc], loadBalancerClass: 'example.com/mine' });
    expect(needsCleanup(svc, 'example.com/mine')).toBe(false);
    h.controller.resyncServices();
    expect(h.serviceQueue.added).not.toContain(key(svc));
  });
});

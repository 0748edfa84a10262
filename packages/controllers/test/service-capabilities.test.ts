/**
 * The service controller with a capability declaration on the LoadBalancer facet (docs/service-capabilities.md,
 * docs/decisions/0205): a refused Service reaches no cloud call and no API write, gets one Warning Event, is not
 * requeued, and is synced again when it changes; an existing load balancer keeps the configuration it was last
 * ensured with; other unsupported fields warn and proceed; without a declaration nothing changes.
 */
import { LOAD_BALANCER_CLEANUP_FINALIZER, type LoadBalancerCapabilities } from '@ccm-kit/cloud-provider';
import { processNextWorkItem } from '@ccm-kit/runtime/controller';
import {
  FakeCloud,
  initializedNode,
  loadBalancerService,
  MemoryInformer,
  RecordingEventRecorder,
} from '@ccm-kit/testing';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { REASON_UNSUPPORTED_SERVICE_FIELD } from '../src/service/capability-check.js';
import { NODE_SYNC_KEY, ServiceController } from '../src/service/controller.js';
import { RecordingClient, RecordingQueue } from './service-fixtures.js';

const NO_SOURCE_RANGES: LoadBalancerCapabilities = {
  protocols: ['TCP', 'UDP'],
  loadBalancerSourceRanges: false,
  sessionAffinityClientIP: false,
};

function harness(capabilities: LoadBalancerCapabilities | undefined, services: V1Service[] = []) {
  const cloud = new FakeCloud({
    provider: 'acme',
    zone: { failureDomain: '', region: 'r' },
    ...(capabilities ? { capabilities } : {}),
  });
  const serviceInformer = new MemoryInformer<V1Service>();
  const nodeInformer = new MemoryInformer<V1Node>();
  serviceInformer.set(...services);
  nodeInformer.set(initializedNode('node1'), initializedNode('node2'));
  const client = new RecordingClient();
  const recorder = new RecordingEventRecorder();
  const serviceQueue = new RecordingQueue();
  const nodeQueue = new RecordingQueue();
  const controller = new ServiceController({
    cloud,
    client,
    informers: { services: () => serviceInformer, nodes: () => nodeInformer },
    recorder,
    serviceQueue,
    nodeQueue,
    config: { clusterName: 'c' },
  });
  /** Processes the next queued Service key with the controller's real worker. */
  const work = () => processNextWorkItem(controller.serviceWorker(), new AbortController().signal);
  return { cloud, serviceInformer, nodeInformer, client, recorder, serviceQueue, nodeQueue, controller, work };
}

const ranged = (name = 'web') => loadBalancerService(name, { spec: { loadBalancerSourceRanges: ['10.0.0.0/8'] } });

const REFUSAL =
  'Warning UnsupportedServiceField Refusing to ensure a load balancer: provider "acme" does not support spec.loadBalancerSourceRanges=10.0.0.0/8 (the load balancer would accept clients from every address). No load balancer is created or changed until the Service no longer asks for it';

describe('a refused Service (source ranges the provider does not enforce)', () => {
  it('gets no cloud call, no finalizer, no status, one Warning Event naming the field and the provider', async () => {
    const svc = ranged();
    const h = harness(NO_SOURCE_RANGES, [svc]);
    h.serviceQueue.add('default/web');
    expect(await h.work()).toBe(true);
    expect(h.cloud.callCounts()).toEqual({});
    expect(h.cloud.balancers.size).toBe(0);
    expect(h.client.actions).toEqual([]);
    expect(h.recorder.lines).toEqual([REFUSAL]);
    expect(h.recorder.events[0]?.object).toMatchObject({
      kind: 'Service',
      namespace: 'default',
      name: 'web',
      uid: 'uid-default-web',
    });
    expect(h.controller.cache.get('default/web')).toBeUndefined();
  });

  it('is not requeued (no backoff loop): the key is forgotten and nothing is added back', async () => {
    const h = harness(NO_SOURCE_RANGES, [ranged()]);
    h.serviceQueue.add('default/web');
    await h.work();
    expect(h.serviceQueue.forgotten).toEqual(['default/web']);
    expect(h.serviceQueue.rateLimited).toEqual([]);
    expect(h.serviceQueue.addedAfter).toEqual([]);
    expect(h.serviceQueue.pending).toEqual([]);
  });

  it('is synced again when it changes, and ensured once the ranges are gone', async () => {
    const svc = ranged();
    const h = harness(NO_SOURCE_RANGES, [svc]);
    h.serviceQueue.add('default/web');
    await h.work();
    expect(h.cloud.callCount('ensureLoadBalancer')).toBe(0);
    // A change unrelated to the load balancer (labels) does not queue it.
    const relabelled = structuredClone(svc);
    relabelled.metadata!.labels = { app: 'web' };
    h.serviceInformer.update(svc, relabelled);
    expect(h.serviceQueue.pending).toEqual([]);
    // Removing the ranges does.
    const open = structuredClone(relabelled);
    delete open.spec!.loadBalancerSourceRanges;
    h.serviceInformer.update(relabelled, open);
    expect(h.serviceQueue.pending).toEqual(['default/web']);
    await h.work();
    expect(h.cloud.callCount('ensureLoadBalancer')).toBe(1);
    expect(h.recorder.lines.slice(1)).toEqual([
      'Normal EnsuringLoadBalancer Ensuring load balancer',
      'Normal EnsuredLoadBalancer Ensured load balancer',
    ]);
  });

  it('refuses the source-ranges annotation too', async () => {
    const svc = loadBalancerService('web', {
      annotations: { 'service.beta.kubernetes.io/load-balancer-source-ranges': '192.168.0.0/16' },
    });
    const h = harness(NO_SOURCE_RANGES, [svc]);
    await h.controller.syncService('default/web');
    expect(h.cloud.callCounts()).toEqual({});
    expect(h.recorder.lines).toEqual([
      expect.stringContaining(
        'provider "acme" does not support metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]=192.168.0.0/16',
      ),
    ]);
  });

  it('leaves an existing load balancer as last ensured: no ensure with the refused spec, hosts still follow the Nodes', async () => {
    const svc = loadBalancerService('web');
    const h = harness(NO_SOURCE_RANGES, [svc]);
    await h.controller.syncService('default/web');
    expect(h.cloud.callCount('ensureLoadBalancer')).toBe(1);
    const accepted = h.controller.cache.get('default/web')?.state;
    // The user adds source ranges and a second port: neither may reach the provider.
    const widened = structuredClone(svc);
    widened.metadata!.finalizers = [LOAD_BALANCER_CLEANUP_FINALIZER];
    widened.spec!.loadBalancerSourceRanges = ['10.0.0.0/8'];
    widened.spec!.ports!.push({ port: 443, protocol: 'TCP' });
    h.serviceInformer.update(svc, widened);
    h.client.actions.length = 0;
    await h.work();
    expect(h.cloud.callCount('ensureLoadBalancer')).toBe(1);
    expect(h.client.actions).toEqual([]);
    expect(h.recorder.lines.at(-1)).toBe(REFUSAL);
    expect(h.controller.cache.get('default/web')?.state).toBe(accepted);
    // A Node goes away: the hosts are updated, with the Service as last ensured.
    h.nodeInformer.items.delete('node2');
    h.nodeQueue.add(NODE_SYNC_KEY);
    await processNextWorkItem(h.controller.nodeWorker(1), new AbortController().signal);
    const [update] = h.cloud.updateCalls;
    expect(update?.hosts.map((n) => n.metadata?.name)).toEqual(['node1']);
    expect(update?.service.spec?.loadBalancerSourceRanges).toBeUndefined();
    expect(update?.service.spec?.ports).toHaveLength(1);
    expect(h.cloud.balancers.get(h.cloud.getLoadBalancerName('c', svc))?.ports).toHaveLength(1);
  });

  it('never blocks the delete path: a deleted Service with ranges loses its load balancer and finalizer', async () => {
    const svc = ranged();
    svc.metadata!.finalizers = [LOAD_BALANCER_CLEANUP_FINALIZER];
    svc.metadata!.deletionTimestamp = new Date();
    const h = harness(NO_SOURCE_RANGES, [svc]);
    h.cloud.exists = true;
    await h.controller.syncService('default/web');
    expect(h.cloud.calls).toEqual(['delete']);
    expect(h.client.actions[0]!.patch).toEqual({ metadata: { finalizers: null } });
    expect(h.recorder.lines.some((e) => e.includes(REASON_UNSUPPORTED_SERVICE_FIELD))).toBe(false);
  });

  it('is not checked when it is not a LoadBalancer Service', async () => {
    const svc = loadBalancerService('web', { spec: { type: 'ClusterIP', loadBalancerSourceRanges: ['10.0.0.0/8'] } });
    const h = harness(NO_SOURCE_RANGES, [svc]);
    await h.controller.syncService('default/web');
    expect(h.recorder.lines).toEqual(['Normal DeletedLoadBalancer Deleted load balancer']);
  });
});

describe('other unsupported fields: a Warning Event, then the load balancer as usual', () => {
  it('warns about sessionAffinity ClientIP and ensures', async () => {
    const svc = loadBalancerService('sticky', { spec: { sessionAffinity: 'ClientIP' } });
    const h = harness(NO_SOURCE_RANGES, [svc]);
    h.serviceQueue.add('default/sticky');
    await h.work();
    expect(h.cloud.callCount('ensureLoadBalancer')).toBe(1);
    expect(h.recorder.lines).toEqual([
      'Warning UnsupportedServiceField Provider "acme" does not support spec.sessionAffinity=ClientIP (the load balancer spreads one client over the nodes (kube-proxy still keeps its affinity)); ensuring the load balancer without it',
      'Normal EnsuringLoadBalancer Ensuring load balancer',
      'Normal EnsuredLoadBalancer Ensured load balancer',
    ]);
    expect(h.serviceQueue.forgotten).toEqual(['default/sticky']);
  });

  it('names an unsupported protocol and still calls the provider (which may reject it)', async () => {
    const svc = loadBalancerService('sctp', { spec: { ports: [{ port: 3868, protocol: 'SCTP' }] } });
    const h = harness(NO_SOURCE_RANGES, [svc]);
    await h.controller.syncService('default/sctp');
    expect(h.cloud.callCount('ensureLoadBalancer')).toBe(1);
    expect(h.recorder.lines[0]).toContain('spec.ports[0].protocol=SCTP');
  });
});

describe('without a declaration (upstream behaviour)', () => {
  it('ensures a Service with source ranges and records no capability event', async () => {
    const h = harness(undefined, [ranged()]);
    await h.controller.syncService('default/web');
    expect(h.cloud.callCount('ensureLoadBalancer')).toBe(1);
    expect(h.recorder.lines).toEqual([
      'Normal EnsuringLoadBalancer Ensuring load balancer',
      'Normal EnsuredLoadBalancer Ensured load balancer',
    ]);
  });
});

describe('a malformed declaration', () => {
  it('fails construction naming the member', () => {
    expect(() => harness({ loadBalancerSourceRanges: 'no' } as unknown as LoadBalancerCapabilities)).toThrow(
      'load balancer capabilities of provider "acme": loadBalancerSourceRanges must be true or false, got "no"',
    );
  });
});

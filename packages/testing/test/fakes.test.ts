import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  initializedNode,
  kubeletNode,
  loadBalancerService,
  MemoryInformer,
  memoryInformers,
  type NamedObject,
  RecordingEventRecorder,
  RecordingLogger,
  uninitializedTaint,
} from '../src/index.js';

describe('MemoryInformer', () => {
  it('keys namespaced objects namespace/name and cluster-scoped ones by name; a nameless object throws', () => {
    const inf = new MemoryInformer<NamedObject>([loadBalancerService('web', { namespace: 'ns' }), kubeletNode('n1')]);
    expect([...inf.items.keys()]).toEqual(['ns/web', 'n1']);
    expect(() => inf.add({ metadata: { namespace: 'ns' } })).toThrow('no metadata.name');
  });

  it('set fills the cache silently; add/update/remove call handlers in order', () => {
    const inf = new MemoryInformer<V1Node>([kubeletNode('a')]);
    const calls: string[] = [];
    inf.addEventHandler({
      onAdd: (o, initial) => calls.push(`add ${o.metadata?.name} ${initial}`),
      onUpdate: (o, n) => calls.push(`update ${o.metadata?.name} ${o === n}`),
      onDelete: (o) =>
        calls.push(`delete ${'deletedFinalStateUnknown' in o ? `tombstone ${o.key}` : o.metadata?.name}`),
    });
    inf.set(kubeletNode('b'));
    const c = kubeletNode('c');
    inf.add(c);
    inf.update(kubeletNode('c'));
    inf.update(kubeletNode('d'));
    inf.remove('c');
    inf.remove(kubeletNode('a'), { tombstone: true });
    inf.remove('missing');
    expect(calls).toEqual(['add c false', 'update c false', 'add d false', 'delete c', 'delete tombstone a']);
    expect(inf.lister.list().map((n) => n.metadata?.name)).toEqual(['b', 'd']);
    expect(inf.lister.get('b')?.metadata?.name).toBe('b');
  });

  it('stops calling a removed handler; hasSynced and listError are settable', () => {
    const inf = new MemoryInformer<V1Node>();
    let adds = 0;
    const remove = inf.addEventHandler({ onAdd: () => adds++ });
    inf.add(kubeletNode('a'));
    remove();
    inf.add(kubeletNode('b'));
    expect(adds).toBe(1);
    inf.synced = false;
    expect(inf.hasSynced()).toBe(false);
    inf.listError = new Error('boom');
    expect(() => inf.lister.list()).toThrow('boom');
  });

  it('memoryInformers serves the Node and Service informers it exposes', () => {
    const informers = memoryInformers({ nodes: [kubeletNode('a')], services: [loadBalancerService('web')] });
    expect(informers.nodes()).toBe(informers.nodeInformer);
    expect(informers.services().lister.get('default/web')?.spec?.type).toBe('LoadBalancer');
    expect(informers.nodes().lister.list()).toHaveLength(1);
  });
});

describe('RecordingEventRecorder', () => {
  it('records event, eventf (Go-style formatting) and annotatedEventf, and renders FakeRecorder lines', () => {
    const r = new RecordingEventRecorder();
    const node = kubeletNode('n1');
    r.event(node, 'Normal', 'Synced', 'done');
    r.eventf(node, 'Warning', 'Failed', 'error %q after %d tries', 'x', 3);
    r.annotatedEventf(node, { a: 'b' }, 'Normal', 'Noted', '%s', 'hi');
    expect(r.events[0]).toEqual({ object: node, type: 'Normal', reason: 'Synced', message: 'done' });
    expect(r.events[2]?.annotations).toEqual({ a: 'b' });
    expect(r.lines).toEqual(['Normal Synced done', 'Warning Failed error "x" after 3 tries', 'Normal Noted hi']);
  });
});

describe('builders', () => {
  it('kubeletNode carries the uninitialized taint and no providerID by default', () => {
    const n = kubeletNode('n1', { ready: 'True' });
    expect(n.spec?.taints).toEqual([uninitializedTaint()]);
    expect(n.spec?.providerID).toBeUndefined();
    expect(n.status?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'True', reason: 'KubeletReady' });
  });

  it('initializedNode has a providerID, no taints and Ready=True unless overridden', () => {
    expect(initializedNode('n1')).toMatchObject({
      spec: { providerID: 'fake://n1', taints: [] },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    expect(initializedNode('n1', { ready: 'unset' }).status?.conditions).toEqual([]);
  });

  it('initializedNode sets both Pod CIDR fields, further conditions and other metadata when given', () => {
    const n = initializedNode('n1', {
      podCIDRs: ['10.120.0.0/24', 'a00:100::/24'],
      conditions: [{ type: 'NetworkUnavailable', status: 'False' }],
      metadata: { uid: 'u1', resourceVersion: '7' },
    });
    expect(n.spec).toMatchObject({ podCIDR: '10.120.0.0/24', podCIDRs: ['10.120.0.0/24', 'a00:100::/24'] });
    expect(n.status?.conditions?.map((c) => c.type)).toEqual(['Ready', 'NetworkUnavailable']);
    expect(n.metadata).toEqual({ name: 'n1', labels: {}, uid: 'u1', resourceVersion: '7' });
    expect(initializedNode('n2').spec).not.toHaveProperty('podCIDRs');
    expect(kubeletNode('n3', { podCIDRs: ['10.0.0.0/24'], metadata: { uid: 'u3' } })).toMatchObject({
      metadata: { name: 'n3', uid: 'u3' },
      spec: { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24'] },
    });
  });

  it('loadBalancerService lays spec overrides over the defaults', () => {
    const s = loadBalancerService('web', { spec: { externalTrafficPolicy: 'Local' } });
    expect(s.spec).toEqual({
      type: 'LoadBalancer',
      ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }],
      externalTrafficPolicy: 'Local',
    });
    expect(s.metadata?.uid).toBe('uid-default-web');
    expect(loadBalancerService('web', { metadata: { finalizers: ['f'] } }).metadata).toMatchObject({
      name: 'web',
      namespace: 'default',
      finalizers: ['f'],
    });
  });
});

describe('RecordingLogger', () => {
  it('records lines with their fields, shares them with its children and gates verbose lines', () => {
    const log = new RecordingLogger({ verbosity: 2 });
    log.info('started', { workers: 2 });
    const child = log.with({ controller: 'x' }, 'sub');
    child.warn('slow');
    const boom = new Error('boom');
    child.error(boom, 'failed', { controller: 'y' });
    child.v(2).info('detail');
    child.v(3).info('hidden');
    expect(child.name).toBe('test/sub');
    expect(log.v(3).enabled).toBe(false);
    expect(log.records).toEqual([
      { level: 'info', msg: 'started', fields: { workers: 2 } },
      { level: 'warn', msg: 'slow', fields: { controller: 'x' } },
      { level: 'error', msg: 'failed', fields: { controller: 'y' }, err: boom },
      { level: 'info', v: 2, msg: 'detail', fields: { controller: 'x' } },
    ]);
    expect(log.lines).toEqual([
      'I started {"workers":2}',
      'W slow {"controller":"x"}',
      'E failed {"controller":"y"}',
      'I detail {"controller":"x"}',
    ]);
    expect(new RecordingLogger().v(100).enabled).toBe(true);
  });
});

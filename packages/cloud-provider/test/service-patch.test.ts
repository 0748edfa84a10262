import {
  addLBFinalizer,
  LOAD_BALANCER_CLEANUP_FINALIZER,
  patchService,
  removeLBFinalizer,
  type ServiceStatusClient,
} from '@ccm-kit/cloud-provider';
import { createTwoWayMergePatch, servicePatch } from '@ccm-kit/cloud-provider/internal';
import type { V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch } from './smp-apply.js';

const base = (): V1Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'test-patch', namespace: 'default', resourceVersion: '3', annotations: {} },
  spec: { clusterIP: '10.0.0.1', type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }] },
  status: { loadBalancer: {} },
});

describe('servicePatch (upstream Test_getPatchBytes and patch shapes)', () => {
  it('SH-16 adding a finalizer gives the exact upstream bytes', () => {
    const oldSvc = base();
    oldSvc.metadata = { ...oldSvc.metadata, finalizers: ['foo'] };
    const newSvc = structuredClone(oldSvc);
    newSvc.metadata = { ...newSvc.metadata, finalizers: ['foo', 'bar'] };
    expect(JSON.stringify(servicePatch(oldSvc, newSvc))).toBe(
      '{"metadata":{"$setElementOrder/finalizers":["foo","bar"],"finalizers":["bar"]}}',
    );
  });

  it('removing one of several finalizers uses $deleteFromPrimitiveList with $setElementOrder', () => {
    const oldSvc = base();
    oldSvc.metadata = { ...oldSvc.metadata, finalizers: ['a', LOAD_BALANCER_CLEANUP_FINALIZER] };
    const newSvc = removeLBFinalizer(oldSvc) as V1Service;
    expect(JSON.stringify(servicePatch(oldSvc, newSvc))).toBe(
      `{"metadata":{"$deleteFromPrimitiveList/finalizers":["${LOAD_BALANCER_CLEANUP_FINALIZER}"],"$setElementOrder/finalizers":["a"]}}`,
    );
  });

  it('removing the last finalizer gives finalizers null; adding the first sends the list', () => {
    const oldSvc = base();
    oldSvc.metadata = { ...oldSvc.metadata, finalizers: [LOAD_BALANCER_CLEANUP_FINALIZER] };
    expect(JSON.stringify(servicePatch(oldSvc, removeLBFinalizer(oldSvc) as V1Service))).toBe(
      '{"metadata":{"finalizers":null}}',
    );
    const fresh = base();
    expect(JSON.stringify(servicePatch(fresh, addLBFinalizer(fresh) as V1Service))).toBe(
      `{"metadata":{"finalizers":["${LOAD_BALANCER_CLEANUP_FINALIZER}"]}}`,
    );
  });

  it('a status change replaces ingress whole; clearing it gives ingress null', () => {
    const oldSvc = base();
    const newSvc = structuredClone(oldSvc);
    newSvc.status = { loadBalancer: { ingress: [{ ip: '8.8.8.8', ipMode: 'VIP' }] } };
    expect(JSON.stringify(servicePatch(oldSvc, newSvc))).toBe(
      '{"status":{"loadBalancer":{"ingress":[{"ip":"8.8.8.8","ipMode":"VIP"}]}}}',
    );
    const cleared = structuredClone(newSvc);
    cleared.status = { loadBalancer: {} };
    expect(JSON.stringify(servicePatch(newSvc, cleared))).toBe('{"status":{"loadBalancer":{"ingress":null}}}');
    const missing = structuredClone(newSvc);
    delete missing.status;
    expect(JSON.stringify(servicePatch(newSvc, missing))).toBe('{"status":{"loadBalancer":{"ingress":null}}}');
  });

  it('never sends spec changes, nor apiVersion/kind, and is {} when nothing changed', () => {
    const oldSvc = base();
    const newSvc = structuredClone(oldSvc);
    newSvc.spec = { ...newSvc.spec, clusterIP: '10.0.0.2', type: 'ClusterIP' };
    delete newSvc.kind;
    expect(servicePatch(oldSvc, newSvc)).toEqual({});
  });

  it('does not modify its inputs', () => {
    const oldSvc = base();
    const newSvc = structuredClone(oldSvc);
    newSvc.spec = { ...newSvc.spec, clusterIP: '10.0.0.2' };
    const before = structuredClone(newSvc);
    servicePatch(oldSvc, newSvc);
    expect(newSvc).toEqual(before);
  });
});

describe('patchService (upstream TestPatchService)', () => {
  it('SH-15 merges with the server state and drops the spec change', async () => {
    const original = base();
    // The server copy gained an annotation through a separate Update.
    let server: V1Service = structuredClone(original);
    server.metadata = { ...server.metadata, annotations: { foo: 'bar' }, resourceVersion: '4' };
    const calls: { namespace: string; name: string; body: string }[] = [];
    const client: ServiceStatusClient = {
      async patchServiceStatus(namespace, name, patch) {
        calls.push({ namespace, name, body: JSON.stringify(patch) });
        server = applyStrategicMergePatch(server, JSON.parse(JSON.stringify(patch))) as V1Service;
        return structuredClone(server);
      },
    };
    const desired = structuredClone(original);
    desired.metadata = { ...desired.metadata, finalizers: ['foo'] };
    desired.spec = { ...desired.spec, clusterIP: '10.0.0.2' };
    desired.status = { loadBalancer: { ingress: [{ ip: '8.8.8.8' }] } };

    const got = await patchService(client, original, desired);

    expect(calls).toEqual([
      {
        namespace: 'default',
        name: 'test-patch',
        body: '{"metadata":{"finalizers":["foo"]},"status":{"loadBalancer":{"ingress":[{"ip":"8.8.8.8"}]}}}',
      },
    ]);
    expect(got.metadata?.finalizers).toEqual(['foo']);
    expect(got.metadata?.annotations).toEqual({ foo: 'bar' });
    expect(got.status).toEqual(desired.status);
    expect(got.spec).toEqual(original.spec);
    expect(got.spec?.clusterIP).toBe('10.0.0.1');
    expect(desired.spec?.clusterIP).toBe('10.0.0.2');
  });

  it('requires a name and namespace', async () => {
    const client: ServiceStatusClient = {
      patchServiceStatus: async () => {
        throw new Error('must not be called');
      },
    };
    await expect(patchService(client, { metadata: { namespace: 'x' } }, {})).rejects.toThrow(
      'oldService.metadata.name is required',
    );
    await expect(patchService(client, { metadata: { name: 'x' } }, {})).rejects.toThrow(
      'oldService.metadata.namespace is required',
    );
  });

  it('propagates client errors unchanged', async () => {
    const err = Object.assign(new Error('not found'), { code: 404 });
    const client: ServiceStatusClient = {
      patchServiceStatus: async () => {
        throw err;
      },
    };
    await expect(patchService(client, base(), base())).rejects.toBe(err);
  });
});

describe('createTwoWayMergePatch', () => {
  it('merges maps key by key, nulls removed keys, replaces atomic lists and sorts keys', () => {
    const patch = createTwoWayMergePatch(
      { metadata: { labels: { a: '1', b: '2' } }, spec: { list: [1, 2] } },
      { metadata: { labels: { b: '3', a: '1', c: '4' } }, spec: { list: [2] } },
    );
    expect(JSON.stringify(patch)).toBe('{"metadata":{"labels":{"b":"3","c":"4"}},"spec":{"list":[2]}}');
    expect(createTwoWayMergePatch({ a: { b: 1 }, c: 1 }, {})).toEqual({ a: { b: null }, c: null });
  });

  it('sends merge-keyed lists whole with a trailing $patch: replace', () => {
    const patch = createTwoWayMergePatch(
      { status: { conditions: [{ type: 'A', status: 'True' }] } },
      { status: { conditions: [{ type: 'B', status: 'False' }] } },
    );
    expect(patch).toEqual({
      status: { conditions: [{ status: 'False', type: 'B' }, { $patch: 'replace' }] },
    });
  });
});

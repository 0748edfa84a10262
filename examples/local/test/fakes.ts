/**
 * Test doubles: an in-memory Service store with the API server's merge-patch preconditions and a recording
 * data plane (the event recorder is the test kit's `RecordingEventRecorder`).
 */
import { kubeletNode, loadBalancerService } from '@ccm-kit/testing';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import type { ServiceStore } from '../src/allocation-store.js';
import type { DataPlane } from '../src/proxy/data-plane.js';
import type { NodeTarget, ServiceProxySpec } from '../src/proxy/service-proxy.js';

/** An error shaped like client-node's ApiException. */
export function apiError(code: number, reason: string): Error & { code: number; body: string } {
  return Object.assign(new Error(`HTTP ${code} ${reason}`), {
    code,
    body: JSON.stringify({ kind: 'Status', code, reason, message: reason }),
  });
}

export class FakeServiceStore implements ServiceStore {
  readonly services = new Map<string, V1Service>();
  patches = 0;
  lists = 0;
  /** Errors thrown by the next patches, in order. */
  readonly patchErrors: Error[] = [];
  #rv = 100;

  /** Stores `service` (a copy, with a new resourceVersion) and returns the stored copy. */
  put(service: V1Service): V1Service {
    const copy = structuredClone(service);
    copy.metadata = { ...copy.metadata, resourceVersion: String(++this.#rv) };
    this.services.set(`${copy.metadata.namespace}/${copy.metadata.name}`, copy);
    return structuredClone(copy);
  }

  stored(namespace: string, name: string): V1Service | undefined {
    const s = this.services.get(`${namespace}/${name}`);
    return s && structuredClone(s);
  }

  async list(): Promise<V1Service[]> {
    this.lists++;
    return [...this.services.values()].map((s) => structuredClone(s));
  }

  async get(namespace: string, name: string): Promise<V1Service | undefined> {
    return this.stored(namespace, name);
  }

  async patchAnnotations(service: V1Service, annotations: Record<string, string | null>): Promise<V1Service> {
    this.patches++;
    const injected = this.patchErrors.shift();
    if (injected) throw injected;
    const key = `${service.metadata?.namespace}/${service.metadata?.name}`;
    const current = this.services.get(key);
    if (!current) throw apiError(404, 'NotFound');
    if (service.metadata?.uid && service.metadata.uid !== current.metadata?.uid) throw apiError(409, 'Conflict');
    if (service.metadata?.resourceVersion && service.metadata.resourceVersion !== current.metadata?.resourceVersion) {
      throw apiError(409, 'Conflict');
    }
    const next = { ...(current.metadata?.annotations ?? {}) };
    for (const [k, v] of Object.entries(annotations)) {
      if (v === null) delete next[k];
      else next[k] = v;
    }
    return this.put({ ...current, metadata: { ...current.metadata, annotations: next } });
  }
}

export class RecordingDataPlane implements DataPlane {
  readonly running = new Map<string, ServiceProxySpec>();
  readonly calls: string[] = [];
  async ensure(key: string, _name: string, spec: ServiceProxySpec): Promise<void> {
    this.calls.push(`ensure ${key}`);
    this.running.set(key, spec);
  }
  async updateNodes(key: string, nodes: readonly NodeTarget[]): Promise<void> {
    this.calls.push(`update ${key}`);
    const spec = this.running.get(key);
    if (spec) this.running.set(key, { ...spec, nodes });
  }
  async remove(key: string): Promise<void> {
    this.calls.push(`remove ${key}`);
    this.running.delete(key);
  }
  async close(): Promise<void> {
    this.running.clear();
  }
}

let uidSeq = 0;

/**
 * The kit's `loadBalancerService` (one TCP port 80, nodePort 30080) with a UID unique in the test run and a
 * creation time (`created`, default 2026-01-01), which the allocation order reads.
 */
export function lbService(
  name: string,
  options: {
    namespace?: string;
    annotations?: Record<string, string>;
    spec?: Partial<NonNullable<V1Service['spec']>>;
    uid?: string;
    created?: string;
  } = {},
): V1Service {
  return loadBalancerService(name, {
    ...(options.namespace && { namespace: options.namespace }),
    ...(options.annotations && { annotations: options.annotations }),
    ...(options.spec && { spec: options.spec }),
    uid: options.uid ?? `uid-${name}-${++uidSeq}`,
    metadata: { creationTimestamp: new Date(options.created ?? '2026-01-01T00:00:00Z') },
  });
}

/** A Node with these InternalIP addresses and no taints or providerID (the kit's `kubeletNode`). */
export const nodeWith = (name: string, ...ips: string[]): V1Node =>
  kubeletNode(name, { taints: [], addresses: ips.map((address) => ({ type: 'InternalIP', address })) });

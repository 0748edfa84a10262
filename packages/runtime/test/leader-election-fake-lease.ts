/**
 * An in-memory coordination.k8s.io/v1 Lease API with resourceVersion conflicts, shaped like
 * client-node's CoordinationV1Api (string MicroTimes on read, ApiException with a JSON Status body).
 */
import { ApiException, type V1Lease } from '@kubernetes/client-node';
import type { LeaseClient } from '../src/leader-election/index.js';

const fail = (code: number, reason: string, message: string) =>
  new ApiException(code, message, JSON.stringify({ kind: 'Status', code, reason, message }), {});

export class FakeLeaseServer {
  leases = new Map<string, V1Lease>();
  #rv = 0;
  /** Every write body as sent, serialised like the real client (to check MicroTime). */
  writes: Array<{ op: 'create' | 'replace'; body: unknown; by: string }> = [];
  /** When set, every call fails with this error. */
  outage: Error | undefined;

  client(who: string): LeaseClient & { down: boolean } {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the methods below are plain object members
    const srv = this;
    const c = {
      down: false,
      async readNamespacedLease(p: { name: string; namespace: string }) {
        srv.#check(c.down);
        const l = srv.leases.get(`${p.namespace}/${p.name}`);
        if (!l) throw fail(404, 'NotFound', `leases.coordination.k8s.io "${p.name}" not found`);
        return structuredClone(l);
      },
      async createNamespacedLease(p: { namespace: string; body: V1Lease }) {
        srv.#check(c.down);
        const key = `${p.namespace}/${p.body.metadata?.name}`;
        if (srv.leases.has(key)) throw fail(409, 'AlreadyExists', 'already exists');
        const stored = srv.#store(p.body);
        srv.writes.push({ op: 'create', body: JSON.parse(JSON.stringify(p.body)), by: who });
        srv.leases.set(key, stored);
        return structuredClone(stored);
      },
      async replaceNamespacedLease(p: { name: string; namespace: string; body: V1Lease }) {
        srv.#check(c.down);
        const key = `${p.namespace}/${p.name}`;
        const cur = srv.leases.get(key);
        if (!cur) throw fail(404, 'NotFound', 'not found');
        if (cur.metadata?.resourceVersion !== p.body.metadata?.resourceVersion) {
          throw fail(
            409,
            'Conflict',
            'the object has been modified; please apply your changes to the latest version and try again',
          );
        }
        const stored = srv.#store(p.body);
        srv.writes.push({ op: 'replace', body: JSON.parse(JSON.stringify(p.body)), by: who });
        srv.leases.set(key, stored);
        return structuredClone(stored);
      },
    };
    return c as unknown as LeaseClient & { down: boolean };
  }

  #check(down: boolean): void {
    if (this.outage) throw this.outage;
    if (down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  }

  /** Stores like the apiserver: JSON round trip, so MicroTimes become strings, and a new resourceVersion. */
  #store(body: V1Lease): V1Lease {
    const stored = JSON.parse(JSON.stringify(body)) as V1Lease;
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.#rv) };
    return stored;
  }

  spec(ns = 'kube-system', name = 'cloud-controller-manager') {
    return this.leases.get(`${ns}/${name}`)?.spec;
  }
}

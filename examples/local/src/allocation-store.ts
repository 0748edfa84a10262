/**
 * Where allocations are persisted: on the Services themselves, in the `local.ccm-kit.io/allocated-ips`
 * annotation (as kube-vip-cloud-provider does), so a restarted provider rebuilds its table by listing
 * Services and needs no database.
 *
 * Writes are JSON merge patches of that one annotation, with `metadata.uid` and `metadata.resourceVersion`
 * as preconditions: a Service deleted and re-created under the same name is never written, and a write
 * racing another change of the Service gets a 409 Conflict, after which the Service is re-read and the
 * write retried (client-go `RetryOnConflict` style; 5 attempts).
 */
import { retryOnConflict } from '@ccm-kit/cloud-provider';
import { callOptions, isNotFound, patchOptions } from '@ccm-kit/runtime/client';
import type { CoreV1Api, V1Service } from '@kubernetes/client-node';
import { ANNOTATION_ALLOCATED_IPS, parseAllocatedIPs } from './annotations.js';

/** The Service API calls the load balancer needs (tests use an in-memory fake). */
export interface ServiceStore {
  /** Every Service of the cluster, all namespaces. */
  list(signal?: AbortSignal): Promise<V1Service[]>;
  /** The Service as stored now, or `undefined` when it does not exist. */
  get(namespace: string, name: string, signal?: AbortSignal): Promise<V1Service | undefined>;
  /**
   * Merge-patches the Service's annotations (`null` removes one), with the uid and resourceVersion of
   * `service` as preconditions. Rejects with an HTTP 409 error on a precondition failure.
   */
  patchAnnotations(
    service: V1Service,
    annotations: Record<string, string | null>,
    signal?: AbortSignal,
  ): Promise<V1Service>;
}

const PAGE_SIZE = 500;

/** A {@link ServiceStore} over client-node's `CoreV1Api` (paged lists, merge patches). */
export function coreV1ServiceStore(api: CoreV1Api): ServiceStore {
  return {
    async list(signal) {
      const out: V1Service[] = [];
      let token: string | undefined;
      do {
        const page = await api.listServiceForAllNamespaces(
          { limit: PAGE_SIZE, ...(token ? { _continue: token } : {}) },
          callOptions(signal ? { signal } : {}),
        );
        out.push(...page.items);
        token = page.metadata?._continue || undefined;
      } while (token);
      return out;
    },
    async get(namespace, name, signal) {
      try {
        return await api.readNamespacedService({ namespace, name }, callOptions(signal ? { signal } : {}));
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    patchAnnotations(service, annotations, signal) {
      const { name = '', namespace = '', uid, resourceVersion } = service.metadata ?? {};
      return api.patchNamespacedService(
        { name, namespace, body: { metadata: { uid, resourceVersion, annotations } } },
        patchOptions('merge', signal ? { signal } : {}),
      );
    },
  };
}

/** The Service was deleted (or re-created under a new UID) while its allocation was being written. */
export class ServiceGoneError extends Error {
  constructor(namespace: string, name: string) {
    super(`service ${namespace}/${name} was deleted or re-created while its allocation was being written`);
    this.name = 'ServiceGoneError';
  }
}

function sameIPs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((ip, i) => ip === b[i]);
}

/**
 * Records `ips` on the Service (an empty list removes the annotation). Nothing is sent when the
 * annotation already says so. Conflicts are retried against a fresh read of the Service.
 * @returns the Service as last seen (patched, re-read, or `service` when nothing was sent).
 * @throws ServiceGoneError when the Service no longer exists with the same UID (not thrown for an empty list:
 *   there is nothing left to clear).
 * @throws the API error when a write fails otherwise, or conflicts persist.
 */
export async function writeAllocation(
  store: ServiceStore,
  service: V1Service,
  ips: readonly string[],
  signal?: AbortSignal,
): Promise<V1Service> {
  const namespace = service.metadata?.namespace ?? '';
  const name = service.metadata?.name ?? '';
  const uid = service.metadata?.uid;
  const value = ips.length > 0 ? ips.join(',') : null;
  const recorded = (s: V1Service) =>
    value === null
      ? s.metadata?.annotations?.[ANNOTATION_ALLOCATED_IPS] === undefined
      : sameIPs(parseAllocatedIPs(s), ips);
  let current = service;
  return retryOnConflict(
    async (attempt) => {
      if (attempt > 0) {
        const fresh = await store.get(namespace, name, signal);
        if (!fresh || fresh.metadata?.uid !== uid) {
          if (value === null) return service;
          throw new ServiceGoneError(namespace, name);
        }
        current = fresh;
      }
      if (recorded(current)) return current;
      try {
        return await store.patchAnnotations(current, { [ANNOTATION_ALLOCATED_IPS]: value }, signal);
      } catch (err) {
        // Clearing the record of a Service that is already gone is done.
        if (value === null && isNotFound(err)) return service;
        throw err;
      }
    },
    { backoff: { steps: 5, durationMs: 50, jitter: 1 } },
  );
}

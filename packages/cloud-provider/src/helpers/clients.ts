/**
 * The minimal API-client shapes the patching helpers need, so they can be tested with fakes.
 * {@link nodeClientFromCoreV1Api} and {@link serviceStatusClientFromCoreV1Api} adapt client-node's
 * `CoreV1Api` (they set the strategic-merge-patch content type that client-node would otherwise get wrong).
 */
import type { CoreV1Api, V1Node, V1Service } from '@kubernetes/client-node';
import { editRequest, patchOptions } from './call-options.js';

/** Reads and patches Nodes. */
export interface NodeClient {
  /**
   * `GET /api/v1/nodes/<name>`. `resourceVersion: '0'` allows an answer from the apiserver cache
   * (the first read of upstream's retry loops).
   */
  getNode(name: string, options?: { resourceVersion?: string }): Promise<V1Node>;
  /** `PATCH /api/v1/nodes/<name>` with a strategic merge patch (`patch` is the JSON body). */
  patchNode(name: string, patch: object): Promise<V1Node>;
}

/** Patches the status subresource of Services. */
export interface ServiceStatusClient {
  /** `PATCH /api/v1/namespaces/<namespace>/services/<name>/status` with a strategic merge patch. */
  patchServiceStatus(namespace: string, name: string, patch: object): Promise<V1Service>;
}

/** The `CoreV1Api` methods {@link nodeClientFromCoreV1Api} calls (the runtime's `CoreV1Client` has them too). */
export type NodeApi = Pick<CoreV1Api, 'readNode' | 'patchNode'>;
/** The `CoreV1Api` method {@link serviceStatusClientFromCoreV1Api} calls. */
export type ServiceStatusApi = Pick<CoreV1Api, 'patchNamespacedServiceStatus'>;

/**
 * A {@link NodeClient} over client-node's `CoreV1Api`. `resourceVersion` is sent as a query parameter on
 * the GET.
 */
export function nodeClientFromCoreV1Api(api: NodeApi): NodeClient {
  return {
    async getNode(name, options) {
      const rv = options?.resourceVersion;
      if (rv === undefined) return api.readNode({ name });
      return api.readNode(
        { name },
        editRequest((ctx) => ctx.setQueryParam('resourceVersion', rv)),
      );
    },
    async patchNode(name, patch) {
      return api.patchNode({ name, body: patch }, patchOptions('strategic'));
    },
  };
}

/** A {@link ServiceStatusClient} over client-node's `CoreV1Api`. */
export function serviceStatusClientFromCoreV1Api(api: ServiceStatusApi): ServiceStatusClient {
  return {
    async patchServiceStatus(namespace, name, patch) {
      return api.patchNamespacedServiceStatus({ namespace, name, body: patch }, patchOptions('strategic'));
    },
  };
}

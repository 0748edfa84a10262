/**
 * The minimal API-client shapes the patching helpers need, so they can be tested with fakes.
 * {@link nodeClientFromCoreV1Api} and {@link serviceStatusClientFromCoreV1Api} adapt client-node's
 * `CoreV1Api` (they set the strategic-merge-patch content type that client-node would otherwise get wrong).
 */
import type { CoreV1Api, V1Node, V1Service } from '@kubernetes/client-node';
import { STRATEGIC_MERGE_PATCH_CONTENT_TYPE } from '../well-known.js';

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

type ClientNode = typeof import('@kubernetes/client-node');
let clientNode: Promise<ClientNode> | undefined;
function loadClientNode(): Promise<ClientNode> {
  clientNode ??= import('@kubernetes/client-node');
  return clientNode;
}

/**
 * A {@link NodeClient} over client-node's `CoreV1Api`. `resourceVersion` is sent as a query parameter on
 * the GET. client-node is loaded on first use, so importing this package stays light.
 */
export function nodeClientFromCoreV1Api(api: CoreV1Api): NodeClient {
  return {
    async getNode(name, options) {
      const rv = options?.resourceVersion;
      if (rv === undefined) return api.readNode({ name });
      const { Observable } = await loadClientNode();
      return api.readNode(
        { name },
        {
          middleware: [
            {
              pre: (ctx) => {
                ctx.setQueryParam('resourceVersion', rv);
                return new Observable(Promise.resolve(ctx));
              },
              post: (rsp) => new Observable(Promise.resolve(rsp)),
            },
          ],
          middlewareMergeStrategy: 'append',
        },
      );
    },
    async patchNode(name, patch) {
      const { setHeaderOptions } = await loadClientNode();
      return api.patchNode(
        { name, body: patch },
        setHeaderOptions('Content-Type', STRATEGIC_MERGE_PATCH_CONTENT_TYPE),
      );
    },
  };
}

/** A {@link ServiceStatusClient} over client-node's `CoreV1Api`. */
export function serviceStatusClientFromCoreV1Api(api: CoreV1Api): ServiceStatusClient {
  return {
    async patchServiceStatus(namespace, name, patch) {
      const { setHeaderOptions } = await loadClientNode();
      return api.patchNamespacedServiceStatus(
        { namespace, name, body: patch },
        setHeaderOptions('Content-Type', STRATEGIC_MERGE_PATCH_CONTENT_TYPE),
      );
    },
  };
}

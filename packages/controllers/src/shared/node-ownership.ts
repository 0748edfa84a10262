/**
 * The `nodeOwnership` option of {@link CloudControllerConfig} (beyond upstream, off by default): when the
 * vendor sets it, Nodes it rejects (for example those with a foreign providerID prefix in a hybrid cluster)
 * are ignored by every controller. Without it every Node is owned, which is upstream behaviour.
 */
import type { DeletedFinalStateUnknown, InformerEventHandler } from '@ccm-kit/cloud-provider';
import type { V1Node } from '@kubernetes/client-node';
import type { CloudControllerConfig } from '../contract/controller-config.js';

/**
 * True when the controllers should act on `node`: `config.nodeOwnership` is unset, or returns true for it.
 * Exceptions thrown by the predicate propagate to the caller.
 */
export function isNodeOwned(config: Pick<CloudControllerConfig, 'nodeOwnership'>, node: V1Node): boolean {
  return config.nodeOwnership === undefined || config.nodeOwnership(node);
}

/** The Nodes of `nodes` that {@link isNodeOwned} accepts, in order (the same array when the option is unset). */
export function ownedNodes(config: Pick<CloudControllerConfig, 'nodeOwnership'>, nodes: V1Node[]): V1Node[] {
  if (config.nodeOwnership === undefined) return nodes;
  return nodes.filter((n) => isNodeOwned(config, n));
}

function isTombstone(obj: V1Node | DeletedFinalStateUnknown<V1Node>): obj is DeletedFinalStateUnknown<V1Node> {
  return (obj as DeletedFinalStateUnknown<V1Node>).deletedFinalStateUnknown === true;
}

/**
 * Wraps a Node informer handler so it only sees owned Nodes: adds and deletes of owned Nodes (a delete's
 * tombstone is judged by its last known object), and updates where the old **or** the new object is owned
 * (so a Node that stops being owned is seen once more). Returns `handler` itself when the option is unset.
 */
export function ownedNodeHandler(
  config: Pick<CloudControllerConfig, 'nodeOwnership'>,
  handler: InformerEventHandler<V1Node>,
): InformerEventHandler<V1Node> {
  if (config.nodeOwnership === undefined) return handler;
  const owned = (n: V1Node) => isNodeOwned(config, n);
  const wrapped: InformerEventHandler<V1Node> = {};
  if (handler.onAdd) {
    const onAdd = handler.onAdd.bind(handler);
    wrapped.onAdd = (obj, initial) => {
      if (owned(obj)) onAdd(obj, initial);
    };
  }
  if (handler.onUpdate) {
    const onUpdate = handler.onUpdate.bind(handler);
    wrapped.onUpdate = (oldObj, newObj) => {
      if (owned(newObj) || owned(oldObj)) onUpdate(oldObj, newObj);
    };
  }
  if (handler.onDelete) {
    const onDelete = handler.onDelete.bind(handler);
    wrapped.onDelete = (obj) => {
      if (owned(isTombstone(obj) ? obj.obj : obj)) onDelete(obj);
    };
  }
  return wrapped;
}

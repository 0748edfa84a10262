/**
 * The ObjectReference upstream controllers attach to Node events: `apiVersion: "v1"`, `kind: "Node"`, the
 * name and the UID, no namespace (the event itself then lands in namespace `default`).
 */
import type { V1Node, V1ObjectReference } from '@kubernetes/client-node';

/** An event reference to `node` (`{apiVersion: 'v1', kind: 'Node', name, uid}`). */
export function nodeReference(node: V1Node): V1ObjectReference {
  return { apiVersion: 'v1', kind: 'Node', name: node.metadata?.name ?? '', uid: node.metadata?.uid ?? '' };
}

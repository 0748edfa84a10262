/**
 * When a Node change reaches the load balancers, and how node sets are compared and logged.
 * Follows upstream `controllers/service/controller.go` (`shouldSyncUpdatedNode`, `nodesSufficientlyEqual`,
 * `nodeNames`, `loggableNodeNames`).
 */
import type { V1Node } from '@kubernetes/client-node';
import { nodeIncludedPredicate } from './predicates.js';

/** Upstream `maxNodeNamesToLog`: node names shown in a log line or event before `<N more>`. */
export const MAX_NODE_NAMES_TO_LOG = 20;

/**
 * Whether a Node update should trigger a node sync: only when the exclusion label changes meaning or
 * `spec.providerID` changes. Taints, readiness, other labels or conditions and a new deletion timestamp do not.
 */
export function shouldSyncUpdatedNode(oldNode: V1Node, newNode: V1Node): boolean {
  if (nodeIncludedPredicate(oldNode) !== nodeIncludedPredicate(newNode)) return true;
  return (oldNode.spec?.providerID ?? '') !== (newNode.spec?.providerID ?? '');
}

/**
 * True when both node sets have the same size and the same map of node name → `spec.providerID`.
 * Order is ignored.
 */
export function nodesSufficientlyEqual(oldNodes: readonly V1Node[], newNodes: readonly V1Node[]): boolean {
  if (oldNodes.length !== newNodes.length) return false;
  const distill = (nodes: readonly V1Node[]) => {
    const m = new Map<string, string>();
    for (const n of nodes) m.set(n.metadata?.name ?? '', n.spec?.providerID ?? '');
    return m;
  };
  const a = distill(oldNodes);
  const b = distill(newNodes);
  if (a.size !== b.size) return false;
  for (const [name, pid] of a) {
    if (!b.has(name) || b.get(name) !== pid) return false;
  }
  return true;
}

/** The sorted, de-duplicated names of `nodes` (upstream `nodeNames(...).List()`). */
export function nodeNames(nodes: readonly V1Node[]): string[] {
  return [...new Set(nodes.map((n) => n.metadata?.name ?? ''))].sort();
}

/**
 * Node names for logs and events: the sorted names of the first {@link MAX_NODE_NAMES_TO_LOG} nodes, followed by
 * `<K more>` when there are more (upstream `loggableNodeNames`).
 */
export function loggableNodeNames(nodes: readonly V1Node[]): string[] {
  if (nodes.length > MAX_NODE_NAMES_TO_LOG) {
    const names = nodeNames(nodes.slice(0, MAX_NODE_NAMES_TO_LOG));
    names.push(`<${nodes.length - MAX_NODE_NAMES_TO_LOG} more>`);
    return names;
  }
  return nodeNames(nodes);
}

/** Go's `%v` rendering of a string slice: `[a b c]`. */
export function formatGoStringSlice(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

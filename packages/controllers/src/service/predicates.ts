/**
 * The node predicates of the service load-balancer controller: which Nodes a load balancer sends traffic to.
 * Follows upstream `controllers/service/controller.go` (`nodeIncludedPredicate`, `nodeUnTaintedPredicate`,
 * `nodeReadyPredicate`, `nodeNotDeletedPredicate`, `stableNodeSetPredicates`, `allNodePredicates`,
 * `listWithPredicates`, `filterWithPredicates`, `respectsPredicates`).
 *
 * Readiness is deliberately NOT part of the set sent to the cloud ({@link stableNodeSetPredicates}): a NotReady
 * node stays in its load balancers, as upstream.
 */
import { LABEL_NODE_EXCLUDE_BALANCERS, TAINT_TO_BE_DELETED_BY_CLUSTER_AUTOSCALER } from '@ccm-kit/cloud-provider';
import type { V1Node } from '@kubernetes/client-node';
import { parseGoBool } from './go-bool.js';

/** A test on one Node (upstream `NodeConditionPredicate`). */
export type NodeConditionPredicate = (node: V1Node) => boolean;

/**
 * True unless the Node carries the exclusion label `node.kubernetes.io/exclude-from-external-load-balancers`
 * with a value that parses (as a Go bool) to true. A value that does not parse, including `""`, excludes the node.
 */
export function nodeIncludedPredicate(node: V1Node): boolean {
  const labels = node.metadata?.labels;
  if (labels === undefined || labels === null || !Object.hasOwn(labels, LABEL_NODE_EXCLUDE_BALANCERS)) return true;
  const parsed = parseGoBool(labels[LABEL_NODE_EXCLUDE_BALANCERS] ?? '');
  return parsed === undefined ? false : !parsed;
}

/** False when the Node has any taint with key `ToBeDeletedByClusterAutoscaler` (whatever its value or effect). */
export function nodeUnTaintedPredicate(node: V1Node): boolean {
  for (const taint of node.spec?.taints ?? []) {
    if (taint.key === TAINT_TO_BE_DELETED_BY_CLUSTER_AUTOSCALER) return false;
  }
  return true;
}

/** True when the Node's `Ready` condition has status `True`; a missing condition counts as not ready. */
export function nodeReadyPredicate(node: V1Node): boolean {
  for (const cond of node.status?.conditions ?? []) {
    if (cond.type === 'Ready') return cond.status === 'True';
  }
  return false;
}

/** Go's zero `time.Time` (0001-01-01T00:00:00Z) in ms since the epoch. */
const GO_ZERO_TIME_MS = Date.parse('0001-01-01T00:00:00Z');

/** True when the Node has no deletion timestamp (Go's `DeletionTimestamp.IsZero()`). */
export function nodeNotDeletedPredicate(node: V1Node): boolean {
  const ts = node.metadata?.deletionTimestamp as unknown;
  if (ts === undefined || ts === null || ts === '') return true;
  // Go's zero time (0001-01-01T00:00:00Z) also counts as unset.
  const ms = ts instanceof Date ? ts.getTime() : Date.parse(String(ts));
  return ms === GO_ZERO_TIME_MS;
}

/** Upstream's test-only predicate list: included, untainted and ready. Not used to choose load-balancer hosts. */
export const allNodePredicates: readonly NodeConditionPredicate[] = Object.freeze([
  nodeIncludedPredicate,
  nodeUnTaintedPredicate,
  nodeReadyPredicate,
]);

/** The node set sent to the cloud: not being deleted, not excluded by label, not tainted by the autoscaler. */
export const stableNodeSetPredicates: readonly NodeConditionPredicate[] = Object.freeze([
  nodeNotDeletedPredicate,
  nodeIncludedPredicate,
  nodeUnTaintedPredicate,
]);

/** True when `node` passes every predicate (true for an empty list). */
export function respectsPredicates(node: V1Node, predicates: readonly NodeConditionPredicate[]): boolean {
  for (const p of predicates) {
    if (!p(node)) return false;
  }
  return true;
}

/** The nodes that pass every predicate, in their original order. */
export function filterWithPredicates(
  nodes: readonly V1Node[],
  predicates: readonly NodeConditionPredicate[],
): V1Node[] {
  return nodes.filter((n) => respectsPredicates(n, predicates));
}

/** Lists every node from `lister` and keeps those that pass every predicate. Errors thrown by the lister propagate. */
export function listWithPredicates(
  lister: { list(): V1Node[] },
  predicates: readonly NodeConditionPredicate[] = [],
): V1Node[] {
  return filterWithPredicates(lister.list(), predicates);
}

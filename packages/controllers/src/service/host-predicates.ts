/**
 * Which Nodes are load-balancer hosts, and when a Node change reaches the load balancers: the host predicates,
 * the stable node set of the Node cache, and the node-sync rules (how node sets are compared and logged).
 * Follows upstream `controllers/service/controller.go` (`nodeIncludedPredicate`, `nodeUnTaintedPredicate`,
 * `nodeReadyPredicate`, `nodeNotDeletedPredicate`, `stableNodeSetPredicates`, `allNodePredicates`,
 * `listWithPredicates`, `filterWithPredicates`, `respectsPredicates`, `shouldSyncUpdatedNode`,
 * `nodesSufficientlyEqual`, `nodeNames`, `loggableNodeNames`).
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

// The stable node set.

/**
 * The stable node set of the Node cache, remembered between calls: every Service's sync filters the same cached
 * Nodes through the same predicates (upstream `listWithPredicates(c.nodeLister, stableNodeSetPredicates)` in
 * `controllers/service/controller.go` `ensureLoadBalancer` and `nodeSyncService`), so while the cache holds the
 * same objects the answer is the same. The cache replaces an object on every change and never mutates one, so
 * the same objects in the same order mean the same answer; anything else is filtered afresh.
 *
 * Only for predicates that read nothing but the Node ({@link stableNodeSetPredicates}); not for a user's
 * `nodeOwnership` function, which may answer differently over time or throw.
 */
export class StableNodeSet {
  readonly #predicates: readonly NodeConditionPredicate[];
  #input: readonly V1Node[] = [];
  #answer: readonly V1Node[] | undefined;

  /** @param predicates pure tests of one Node (the answer depends on the Node object alone). */
  constructor(predicates: readonly NodeConditionPredicate[]) {
    this.#predicates = predicates;
  }

  /**
   * The Nodes of `nodes` that pass every predicate, in order, equal to `filterWithPredicates(nodes, predicates)`:
   * one frozen array, the same while `nodes` holds the same objects in the same order. Every Service keeps the
   * set it last synced, so a cluster of N Nodes and S Services holds one array of N rather than S of them
   * (at 50,000 Nodes and 2,500 Services, about 1 GB less); a caller that hands it to a provider copies it.
   */
  filter(nodes: readonly V1Node[]): readonly V1Node[] {
    if (this.#answer === undefined || !sameObjects(nodes, this.#input)) {
      this.#input = nodes.slice();
      this.#answer = Object.freeze(filterWithPredicates(nodes, this.#predicates));
    }
    return this.#answer;
  }
}

/** True when both lists hold the same objects in the same order. */
function sameObjects(a: readonly V1Node[], b: readonly V1Node[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return false;
  }
  return true;
}

// The node-sync rules.

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

// The hosts of this controller's load balancers.

/** The load-balancer hosts of a Node list, and the predicates that choose them. */
export interface HostNodeSet {
  /** {@link stableNodeSetPredicates}, then the `nodeOwnership` test when there is one. */
  readonly predicates: readonly NodeConditionPredicate[];
  /**
   * The Nodes of `nodes` that pass every predicate, in order. Not to be changed: the stable set answers the same
   * array while the Node cache holds the same objects.
   */
  filter(nodes: readonly V1Node[]): readonly V1Node[];
}

/**
 * The hosts the controller sends to the cloud: the stable node set, remembered ({@link StableNodeSet}) while the
 * predicates are upstream's pure ones; with a `nodeOwnership` function (beyond upstream), also only the Nodes it
 * accepts, filtered afresh on every call.
 */
export function hostNodeSet(nodeOwnership?: (node: V1Node) => boolean): HostNodeSet {
  if (nodeOwnership === undefined) {
    const stable = new StableNodeSet(stableNodeSetPredicates);
    return { predicates: stableNodeSetPredicates, filter: (nodes) => stable.filter(nodes) };
  }
  const predicates = [...stableNodeSetPredicates, (n: V1Node) => nodeOwnership(n)];
  return { predicates, filter: (nodes) => filterWithPredicates(nodes, predicates) };
}

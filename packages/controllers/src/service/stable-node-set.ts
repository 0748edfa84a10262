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
import type { V1Node } from '@kubernetes/client-node';
import { filterWithPredicates, type NodeConditionPredicate } from './predicates.js';

/** {@link filterWithPredicates} with the last input and answer remembered. */
export class StableNodeSet {
  readonly #predicates: readonly NodeConditionPredicate[];
  #input: readonly V1Node[] = [];
  #answer: V1Node[] | undefined;

  /** @param predicates pure tests of one Node (the answer depends on the Node object alone). */
  constructor(predicates: readonly NodeConditionPredicate[]) {
    this.#predicates = predicates;
  }

  /**
   * The Nodes of `nodes` that pass every predicate, in order: a new array on each call (callers keep it and
   * hand it to the provider), equal to `filterWithPredicates(nodes, predicates)`.
   */
  filter(nodes: readonly V1Node[]): V1Node[] {
    if (this.#answer === undefined || !sameObjects(nodes, this.#input)) {
      this.#input = nodes.slice();
      this.#answer = filterWithPredicates(nodes, this.#predicates);
    }
    return this.#answer.slice();
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

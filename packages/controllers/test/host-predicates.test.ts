import { LABEL_NODE_EXCLUDE_BALANCERS, TAINT_TO_BE_DELETED_BY_CLUSTER_AUTOSCALER } from '@ccm-kit/cloud-provider';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { filterWithPredicates, StableNodeSet, stableNodeSetPredicates } from '../src/service/host-predicates.js';
import { makeNode } from './service-fixtures.js';

const names = (nodes: readonly V1Node[]) => nodes.map((n) => n.metadata?.name);

describe('StableNodeSet', () => {
  it('answers as filterWithPredicates while the cache changes: replaced, added, removed and reordered Nodes', () => {
    const set = new StableNodeSet(stableNodeSetPredicates);
    let cache = [makeNode({ name: 'a' }), makeNode({ name: 'b' }), makeNode({ name: 'c' })];
    const check = () => {
      const got = set.filter([...cache]);
      expect(got).toEqual(filterWithPredicates(cache, stableNodeSetPredicates));
      return names(got);
    };
    expect(check()).toEqual(['a', 'b', 'c']);
    expect(check()).toEqual(['a', 'b', 'c']);
    // An update replaces the object (the autoscaler's taint): the set drops it at once.
    cache = [
      cache[0]!,
      makeNode({ name: 'b', taints: [{ key: TAINT_TO_BE_DELETED_BY_CLUSTER_AUTOSCALER, effect: 'NoSchedule' }] }),
      cache[2]!,
    ];
    expect(check()).toEqual(['a', 'c']);
    cache = [...cache, makeNode({ name: 'd' })];
    expect(check()).toEqual(['a', 'c', 'd']);
    cache = [
      cache[0]!,
      cache[1]!,
      makeNode({ name: 'c', labels: { [LABEL_NODE_EXCLUDE_BALANCERS]: 'true' } }),
      cache[3]!,
    ];
    expect(check()).toEqual(['a', 'd']);
    cache = [cache[3]!, cache[0]!];
    expect(check()).toEqual(['d', 'a']);
    cache = [cache[0]!];
    expect(check()).toEqual(['d']);
    cache = [];
    expect(check()).toEqual([]);
  });

  it('answers one frozen array while the cache holds the same objects, and a new one when it changes', () => {
    const set = new StableNodeSet(stableNodeSetPredicates);
    const cache = [makeNode({ name: 'b' }), makeNode({ name: 'a' })];
    const first = set.filter(cache);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => (first as V1Node[]).sort()).toThrow(TypeError);
    expect(set.filter([...cache])).toBe(first);
    const changed = set.filter([cache[1]!]);
    expect(changed).not.toBe(first);
    expect(names(changed)).toEqual(['a']);
    expect(names(first)).toEqual(['b', 'a']);
  });

  it('filters afresh when the caller changes its input array after the call', () => {
    const set = new StableNodeSet(stableNodeSetPredicates);
    const input = [makeNode({ name: 'a' })];
    expect(names(set.filter(input))).toEqual(['a']);
    input.push(makeNode({ name: 'b' }));
    expect(names(set.filter(input))).toEqual(['a', 'b']);
  });
});

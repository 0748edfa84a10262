import { deepCopy } from '@ccm-kit/cloud-provider/internal';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

function node(): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: 'n1',
      labels: { 'topology.kubernetes.io/zone': 'a' },
      annotations: {},
      creationTimestamp: new Date('2026-01-02T03:04:05Z'),
    },
    spec: { taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }] },
    status: {
      addresses: [{ type: 'Hostname', address: 'n1' }],
      capacity: { cpu: '4' },
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: new Date(0) }],
    },
  };
}

describe('deepCopy', () => {
  it('gives what structuredClone gives for an API object, Dates included', () => {
    const n = node();
    const copy = deepCopy(n);
    expect(copy).toStrictEqual(structuredClone(n));
    expect(copy.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(copy.metadata?.creationTimestamp).not.toBe(n.metadata?.creationTimestamp);
  });

  it('shares nothing mutable with the original', () => {
    const n = node();
    const copy = deepCopy(n);
    copy.metadata!.labels!.x = 'y';
    copy.spec!.taints!.pop();
    copy.status!.addresses![0]!.address = 'changed';
    (copy.metadata!.creationTimestamp as Date).setTime(1);
    expect(n).toStrictEqual(node());
  });

  it('keeps members that are undefined, as structuredClone does', () => {
    const copy = deepCopy({ a: undefined, b: [undefined, null] });
    expect(Object.keys(copy)).toEqual(['a', 'b']);
    expect(copy.b).toEqual([undefined, null]);
  });

  it('returns primitives unchanged and copies an object without a prototype into a plain object', () => {
    expect(deepCopy('s')).toBe('s');
    expect(deepCopy(3)).toBe(3);
    expect(deepCopy(null)).toBe(null);
    expect(deepCopy(undefined)).toBe(undefined);
    const bare = Object.assign(Object.create(null) as object, { k: 1 });
    expect(deepCopy(bare)).toStrictEqual(structuredClone(bare));
  });

  it('hands other objects to structuredClone: a class instance becomes plain data, a Map is copied', () => {
    class Holder {
      constructor(readonly v: number[]) {}
    }
    const h = new Holder([1, 2]);
    const copy = deepCopy({ h, m: new Map([['a', [1]]]) });
    expect(copy.h).not.toBeInstanceOf(Holder);
    expect(copy.h).toEqual({ v: [1, 2] });
    expect(copy.h.v).not.toBe(h.v);
    expect(copy.m).toBeInstanceOf(Map);
    expect(copy.m.get('a')).toEqual([1]);
  });

  it('throws DataCloneError for a function anywhere in the value, as structuredClone does', () => {
    expect(() => deepCopy({ a: [() => 1] })).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
  });
});

import { formatGoDuration } from '@ccm-kit/runtime';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it, vi } from 'vitest';
import { deepEqualNilStrict } from '../src/shared/deep-equal.js';
import { isNodeOwned, ownedNodeHandler, ownedNodes } from '../src/shared/node-ownership.js';
import { nodeReference } from '../src/shared/node-reference.js';

const n = (name: string, providerID?: string): V1Node => ({
  metadata: { name, uid: `uid-${name}` },
  spec: { providerID },
});

describe('formatGoDuration (Go time.Duration.String)', () => {
  it.each([
    [0, '0s'],
    [0.000_5, '500ns'],
    [0.85, '850µs'],
    [1.5, '1.5ms'],
    [12.345_678, '12.345678ms'],
    [1_500, '1.5s'],
    [60_000, '1m0s'],
    [123_250, '2m3.25s'],
    [3_600_000, '1h0m0s'],
    [-2_000, '-2s'],
  ])('%d ms -> %s', (ms, want) => {
    expect(formatGoDuration(ms)).toBe(want);
  });
});

describe('isNodeOwned / ownedNodes / ownedNodeHandler (config.nodeOwnership)', () => {
  const cfg = { nodeOwnership: (node: V1Node) => node.spec?.providerID?.startsWith('acme://') ?? false };

  it('without the option every node is owned (upstream behaviour)', () => {
    expect(isNodeOwned({}, n('a'))).toBe(true);
    const list = [n('a')];
    expect(ownedNodes({}, list)).toBe(list);
  });

  it('with the option rejected nodes are filtered', () => {
    expect(isNodeOwned(cfg, n('a', 'acme://1'))).toBe(true);
    expect(isNodeOwned(cfg, n('b', 'other://1'))).toBe(false);
    expect(ownedNodes(cfg, [n('a', 'acme://1'), n('b', 'other://1')]).map((x) => x.metadata!.name)).toEqual(['a']);
  });

  it('the handler wrapper forwards owned adds/deletes (tombstones too) and updates where either side is owned', () => {
    const h = { onAdd: vi.fn(), onUpdate: vi.fn(), onDelete: vi.fn() };
    const w = ownedNodeHandler(cfg, h);
    w.onAdd!(n('b', 'other://1'), false);
    w.onAdd!(n('a', 'acme://1'), true);
    expect(h.onAdd).toHaveBeenCalledTimes(1);
    expect(h.onAdd).toHaveBeenCalledWith(n('a', 'acme://1'), true);
    w.onUpdate!(n('b', 'other://1'), n('b', 'other://2'));
    w.onUpdate!(n('a', 'acme://1'), n('a', 'other://1'));
    expect(h.onUpdate).toHaveBeenCalledTimes(1);
    w.onDelete!({ key: 'a', obj: n('a', 'acme://1'), deletedFinalStateUnknown: true });
    w.onDelete!(n('b', 'other://1'));
    expect(h.onDelete).toHaveBeenCalledTimes(1);
    expect(ownedNodeHandler({}, h)).toBe(h);
  });
});

describe('nodeReference and deepEqualNilStrict', () => {
  it('node events reference apiVersion v1, kind Node, name and UID', () => {
    expect(nodeReference(n('x'))).toEqual({ apiVersion: 'v1', kind: 'Node', name: 'x', uid: 'uid-x' });
  });
  it('nil equals missing, but nil differs from []', () => {
    expect(deepEqualNilStrict({ a: undefined }, {})).toBe(true);
    expect(deepEqualNilStrict(undefined, null)).toBe(true);
    expect(deepEqualNilStrict(undefined, [])).toBe(false);
    expect(deepEqualNilStrict([{ a: 1 }], [{ a: 1 }])).toBe(true);
    expect(deepEqualNilStrict([{ a: 1 }], [{ a: 2 }])).toBe(false);
    expect(deepEqualNilStrict({}, [])).toBe(false);
  });
});

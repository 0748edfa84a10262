import { addOrUpdateLabelsOnNode, LABEL_TOPOLOGY_ZONE, type NodeClient } from '@ccm-kit/cloud-provider';
import { nodeLabelsPatch } from '@ccm-kit/cloud-provider/internal';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

describe('nodeLabelsPatch', () => {
  it('contains only missing or different labels, sorted', () => {
    const node: V1Node = { metadata: { name: 'n', labels: { a: '1', b: '2' } } };
    expect(nodeLabelsPatch(node, { c: '3', a: '1', b: 'x' })).toEqual({
      metadata: { labels: { b: 'x', c: '3' } },
    });
    expect(JSON.stringify(nodeLabelsPatch(node, { z: '1', c: '3' }))).toBe('{"metadata":{"labels":{"c":"3","z":"1"}}}');
  });

  it('is undefined when nothing changes, and handles a node without labels', () => {
    expect(nodeLabelsPatch({ metadata: { labels: { a: '1' } } }, { a: '1' })).toBeUndefined();
    expect(nodeLabelsPatch({ metadata: {} }, { a: '1' })).toEqual({ metadata: { labels: { a: '1' } } });
  });
});

describe('addOrUpdateLabelsOnNode', () => {
  function client(node: V1Node, failPatch?: Error) {
    const calls: unknown[][] = [];
    const c: NodeClient = {
      async getNode(name, options) {
        calls.push(['get', name, options?.resourceVersion]);
        return structuredClone(node);
      },
      async patchNode(name, patch) {
        calls.push(['patch', name, patch]);
        if (failPatch) throw failPatch;
        return node;
      },
    };
    return { c, calls };
  }

  it('reads from the cache first and sends a labels-only patch to the node', async () => {
    const { c, calls } = client({ metadata: { name: 'n1', labels: { keep: 'v' } } });
    expect(await addOrUpdateLabelsOnNode(c, { [LABEL_TOPOLOGY_ZONE]: 'z1' }, { metadata: { name: 'n1' } })).toBe(true);
    expect(calls).toEqual([
      ['get', 'n1', '0'],
      ['patch', 'n1', { metadata: { labels: { [LABEL_TOPOLOGY_ZONE]: 'z1' } } }],
    ]);
  });

  it('returns false and reports "failed to patch the node" on a patch error', async () => {
    const { c } = client({ metadata: { name: 'n1' } }, new Error('boom'));
    const errors: Error[] = [];
    const ok = await addOrUpdateLabelsOnNode(
      c,
      { a: 'b' },
      { metadata: { name: 'n1' } },
      { onError: (e) => errors.push(e), sleep: async () => {} },
    );
    expect(ok).toBe(false);
    expect(errors[0]?.message).toBe('failed to update labels for node "n1": failed to patch the node: boom');
  });

  it('returns false for a node without a name', async () => {
    const { c, calls } = client({ metadata: {} });
    const errors: Error[] = [];
    expect(await addOrUpdateLabelsOnNode(c, { a: 'b' }, { metadata: {} }, { onError: (e) => errors.push(e) })).toBe(
      false,
    );
    expect(calls).toEqual([]);
    expect(errors[0]?.message).toContain('node.metadata.name is required');
  });
});

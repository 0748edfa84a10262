import {
  addOrUpdateTaint,
  addOrUpdateTaintOnNode,
  deleteTaint,
  type NodeClient,
  removeTaint,
  removeTaintOffNode,
  TAINT_NODE_SHUTDOWN,
  taintExists,
  taintMatches,
  taintsEqual,
} from '@ccm-kit/cloud-provider';
import { nodeTaintsPatch } from '@ccm-kit/cloud-provider/internal';
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

const taint = (key: string, effect: string, value?: string): V1Taint =>
  value === undefined ? { key, effect } : { key, value, effect };

const nodeWith = (taints: V1Taint[] | undefined, resourceVersion = '7'): V1Node => ({
  metadata: { name: 'node1', resourceVersion },
  spec: taints === undefined ? {} : { taints },
});

describe('taintExists (upstream TestTaintExists)', () => {
  const taints = [taint('foo_1', 'NoExecute', 'bar_1'), taint('foo_2', 'NoSchedule', 'bar_2')];

  it('NH-19 taint exists', () => {
    expect(taintExists(taints, taint('foo_1', 'NoExecute', 'bar_1'))).toBe(true);
  });

  it('NH-20 different key', () => {
    expect(taintExists(taints, taint('no_such_key', 'NoExecute', 'bar_1'))).toBe(false);
  });

  it('NH-21 different effect', () => {
    expect(taintExists(taints, taint('foo_1', 'NoSchedule', 'bar_1'))).toBe(false);
  });

  it('matches by key and effect only, ignoring the value', () => {
    expect(taintExists(taints, taint('foo_1', 'NoExecute', 'other'))).toBe(true);
    expect(taintExists(undefined, taint('foo_1', 'NoExecute'))).toBe(false);
  });
});

describe('removeTaint (upstream TestRemoveTaint)', () => {
  it('NH-22 remove taint unsuccessfully', () => {
    const node = nodeWith([taint('foo', 'NoSchedule')]);
    const r = removeTaint(node, taint('foo_1', 'NoSchedule'));
    expect(r.node.spec?.taints).toEqual([taint('foo', 'NoSchedule')]);
    expect(r.changed).toBe(false);
  });

  it('NH-23 remove taint successfully', () => {
    const node = nodeWith([taint('foo', 'NoSchedule')]);
    const r = removeTaint(node, taint('foo', 'NoSchedule'));
    expect(r.node.spec?.taints).toEqual([]);
    expect(r.changed).toBe(true);
    expect(node.spec?.taints).toEqual([taint('foo', 'NoSchedule')]);
  });

  it('NH-24 remove taint from node with no taint', () => {
    const r = removeTaint(nodeWith([]), taint('foo', 'NoSchedule'));
    expect(r.node.spec?.taints).toEqual([]);
    expect(r.changed).toBe(false);
  });
});

describe('deleteTaint (upstream TestDeleteTaint)', () => {
  it('NH-25 delete taint with different name', () => {
    expect(deleteTaint([taint('foo', 'NoSchedule')], taint('foo_1', 'NoSchedule'))).toEqual({
      taints: [taint('foo', 'NoSchedule')],
      deleted: false,
    });
  });

  it('NH-26 delete taint with different effect', () => {
    expect(deleteTaint([taint('foo', 'NoSchedule')], taint('foo', 'NoExecute'))).toEqual({
      taints: [taint('foo', 'NoSchedule')],
      deleted: false,
    });
  });

  it('NH-27 delete taint successfully', () => {
    expect(deleteTaint([taint('foo', 'NoSchedule')], taint('foo', 'NoSchedule'))).toEqual({
      taints: [],
      deleted: true,
    });
  });

  it('NH-28 delete taint from empty taint array', () => {
    expect(deleteTaint([], taint('foo', 'NoSchedule'))).toEqual({ taints: [], deleted: false });
  });

  it('removes every matching taint, whatever its value', () => {
    const r = deleteTaint(
      [taint('foo', 'NoSchedule', 'a'), taint('bar', 'NoSchedule'), taint('foo', 'NoSchedule', 'b')],
      taint('foo', 'NoSchedule'),
    );
    expect(r).toEqual({ taints: [taint('bar', 'NoSchedule')], deleted: true });
  });
});

describe('taint equality and addOrUpdateTaint', () => {
  it('taintMatches ignores value; taintsEqual compares value and timeAdded as instants', () => {
    expect(taintMatches(taint('k', 'NoSchedule', 'a'), taint('k', 'NoSchedule', 'b'))).toBe(true);
    expect(taintsEqual(taint('k', 'NoSchedule', 'a'), taint('k', 'NoSchedule', 'b'))).toBe(false);
    expect(taintsEqual(taint('k', 'NoSchedule', ''), taint('k', 'NoSchedule'))).toBe(true);
    const t1 = { ...taint('k', 'NoSchedule'), timeAdded: new Date('2024-01-01T00:00:00Z') };
    const t2 = { ...taint('k', 'NoSchedule'), timeAdded: new Date('2024-01-01T00:00:00.000Z') };
    expect(taintsEqual(t1, t2)).toBe(true);
    expect(taintsEqual(t1, taint('k', 'NoSchedule'))).toBe(false);
  });

  it('is a no-op for an equal taint, replaces a different one in place, appends a new one', () => {
    const node = nodeWith([taint('a', 'NoSchedule'), taint('b', 'NoSchedule', 'x'), taint('c', 'NoExecute')]);
    expect(addOrUpdateTaint(node, taint('a', 'NoSchedule')).changed).toBe(false);
    const replaced = addOrUpdateTaint(node, taint('b', 'NoSchedule', 'y'));
    expect(replaced.changed).toBe(true);
    expect(replaced.node.spec?.taints).toEqual([
      taint('a', 'NoSchedule'),
      taint('b', 'NoSchedule', 'y'),
      taint('c', 'NoExecute'),
    ]);
    const appended = addOrUpdateTaint(node, taint('a', 'NoExecute'));
    expect(appended.node.spec?.taints?.at(-1)).toEqual(taint('a', 'NoExecute'));
    expect(node.spec?.taints).toHaveLength(3);
  });
});

describe('nodeTaintsPatch (upstream PatchNodeTaints)', () => {
  it('carries the resourceVersion and the whole new taint list', () => {
    const old = nodeWith([taint('a', 'NoSchedule')], '42');
    const patch = nodeTaintsPatch(old, {
      spec: { taints: [taint('a', 'NoSchedule'), taint('b', 'NoExecute', 'v')] },
    });
    expect(JSON.stringify(patch)).toBe(
      '{"metadata":{"resourceVersion":"42"},"spec":{"taints":[{"effect":"NoSchedule","key":"a"},{"effect":"NoExecute","key":"b","value":"v"}]}}',
    );
  });

  it('sends null when the list becomes empty and RFC 3339 seconds for timeAdded', () => {
    const old = nodeWith([taint('a', 'NoSchedule')], '42');
    expect(nodeTaintsPatch(old, { spec: { taints: [] } })).toEqual({
      metadata: { resourceVersion: '42' },
      spec: { taints: null },
    });
    const withTime = nodeTaintsPatch(nodeWith([], '1'), {
      spec: { taints: [{ ...taint('s', 'NoSchedule'), timeAdded: new Date('2024-05-06T07:08:09.123Z') }] },
    });
    expect(withTime).toEqual({
      metadata: { resourceVersion: '1' },
      spec: { taints: [{ effect: 'NoSchedule', key: 's', timeAdded: '2024-05-06T07:08:09Z' }] },
    });
  });
});

/** A fake NodeClient recording calls; `conflicts` makes the next N patches fail with a 409. */
class FakeNodeClient implements NodeClient {
  node: V1Node;
  calls: { verb: 'get' | 'patch'; resourceVersion?: string; patch?: object }[] = [];
  conflicts = 0;

  constructor(node: V1Node) {
    this.node = node;
  }

  async getNode(_name: string, options?: { resourceVersion?: string }): Promise<V1Node> {
    this.calls.push({ verb: 'get', resourceVersion: options?.resourceVersion });
    return structuredClone(this.node);
  }

  async patchNode(_name: string, patch: object): Promise<V1Node> {
    this.calls.push({ verb: 'patch', patch });
    if (this.conflicts > 0) {
      this.conflicts--;
      throw Object.assign(new Error('Operation cannot be fulfilled: the object has been modified'), {
        code: 409,
      });
    }
    const p = patch as { spec?: { taints?: V1Taint[] | null } };
    if (p.spec && 'taints' in p.spec) this.node.spec = { ...this.node.spec, taints: p.spec.taints ?? undefined };
    return structuredClone(this.node);
  }
}

const noSleep = { sleep: async () => {} };
const shutdown = taint(TAINT_NODE_SHUTDOWN, 'NoSchedule');

describe('addOrUpdateTaintOnNode', () => {
  it('does nothing without taints', async () => {
    const client = new FakeNodeClient(nodeWith([]));
    await addOrUpdateTaintOnNode(client, 'node1', [], noSleep);
    expect(client.calls).toEqual([]);
  });

  it('reads with resourceVersion 0 first and patches once', async () => {
    const client = new FakeNodeClient(nodeWith([], '5'));
    await addOrUpdateTaintOnNode(client, 'node1', [shutdown], noSleep);
    expect(client.calls.map((c) => [c.verb, c.resourceVersion])).toEqual([
      ['get', '0'],
      ['patch', undefined],
    ]);
    expect(client.calls[1]?.patch).toEqual({
      metadata: { resourceVersion: '5' },
      spec: { taints: [{ effect: 'NoSchedule', key: TAINT_NODE_SHUTDOWN }] },
    });
    expect(client.node.spec?.taints).toEqual([shutdown]);
  });

  it('makes no patch when the taint is already there', async () => {
    const client = new FakeNodeClient(nodeWith([shutdown]));
    await addOrUpdateTaintOnNode(client, 'node1', [shutdown], noSleep);
    expect(client.calls.map((c) => c.verb)).toEqual(['get']);
  });

  it('retries on conflict with fresh reads, then gives up after 5 attempts', async () => {
    const client = new FakeNodeClient(nodeWith([]));
    client.conflicts = 2;
    const sleeps: number[] = [];
    await addOrUpdateTaintOnNode(client, 'node1', [shutdown], {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0.5,
    });
    expect(client.calls.filter((c) => c.verb === 'get').map((c) => c.resourceVersion)).toEqual([
      '0',
      undefined,
      undefined,
    ]);
    expect(sleeps).toEqual([150, 150]);

    const stuck = new FakeNodeClient(nodeWith([]));
    stuck.conflicts = 100;
    await expect(addOrUpdateTaintOnNode(stuck, 'node1', [shutdown], noSleep)).rejects.toMatchObject({
      code: 409,
    });
    expect(stuck.calls.filter((c) => c.verb === 'patch')).toHaveLength(5);
  });

  it('does not retry other errors', async () => {
    const client = new FakeNodeClient(nodeWith([]));
    client.patchNode = async () => {
      throw Object.assign(new Error('forbidden'), { code: 403 });
    };
    await expect(addOrUpdateTaintOnNode(client, 'node1', [shutdown], noSleep)).rejects.toThrow('forbidden');
    expect(client.calls.filter((c) => c.verb === 'get')).toHaveLength(1);
  });
});

describe('removeTaintOffNode', () => {
  it('short-circuits without any API call when the given node has none of the taints', async () => {
    const client = new FakeNodeClient(nodeWith([shutdown]));
    await removeTaintOffNode(client, 'node1', nodeWith([taint('other', 'NoSchedule')]), [shutdown], noSleep);
    expect(client.calls).toEqual([]);
    await removeTaintOffNode(client, 'node1', undefined, [], noSleep);
    expect(client.calls).toEqual([]);
  });

  it('removes every matching taint and sends null when none remain', async () => {
    const client = new FakeNodeClient(nodeWith([shutdown, { ...shutdown, value: 'x' }], '9'));
    await removeTaintOffNode(client, 'node1', client.node, [shutdown], noSleep);
    expect(client.calls.map((c) => c.verb)).toEqual(['get', 'patch']);
    expect(client.calls[1]?.patch).toEqual({ metadata: { resourceVersion: '9' }, spec: { taints: null } });
    expect(client.node.spec?.taints).toBeUndefined();
  });

  it('makes no patch when the server copy no longer has the taint', async () => {
    const client = new FakeNodeClient(nodeWith([]));
    await removeTaintOffNode(client, 'node1', nodeWith([shutdown]), [shutdown], noSleep);
    expect(client.calls.map((c) => c.verb)).toEqual(['get']);
  });
});

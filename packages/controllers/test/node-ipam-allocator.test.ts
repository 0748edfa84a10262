/**
 * node-ipam-controller over an in-memory Node informer and a fake Node client, with the scenarios of upstream's
 * `pkg/controller/nodeipam/ipam/range_allocator_test.go` in our own words (existing CIDRs occupied at start,
 * first free block, Service ranges skipped, dual-stack order, a full pool, released blocks reused) and the
 * ones that keep two Nodes from sharing a CIDR (a lost write re-read, a write of unknown outcome, collisions,
 * a deleted Node releasing only its own blocks).
 */
import { parseCIDR } from '@ccm-kit/cloud-provider';
import { memoryInformers, RecordingEventRecorder, silentLogger } from '@ccm-kit/testing';
import { ApiException, type V1Node } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { NodeIPAMController, type NodeIPAMApi } from '../src/node-ipam/controller.js';
import { createCidrSetMetrics } from '../src/node-ipam/metrics.js';

function node(name: string, podCIDRs?: string[], uid = `uid-${name}`): V1Node {
  return { metadata: { name, uid }, spec: podCIDRs ? { podCIDRs, podCIDR: podCIDRs[0] } : {} };
}

function apiError(code: number, reason: string): ApiException<string> {
  const body = JSON.stringify({ kind: 'Status', code, reason, message: reason });
  return new ApiException(code, reason, body, { 'content-type': 'application/json' });
}

interface Setup {
  cluster: string[];
  masks: number[];
  service?: string[];
  nodes: V1Node[];
  /** Answers of the next PATCH calls, in order: an error to throw, or 'ok'. */
  patchAnswers?: (Error | 'ok' | 'ok-but-lost')[];
  /** The Node the re-read GET returns (default: the informer's). */
  readAnswer?: (name: string) => V1Node | Error;
}

function setup(s: Setup) {
  const informers = memoryInformers({ nodes: s.nodes });
  const recorder = new RecordingEventRecorder();
  const patches: { name: string; body: { metadata: { uid?: string }; spec: { podCIDRs: string[] } } }[] = [];
  const answers = [...(s.patchAnswers ?? [])];
  const inf = informers.nodeInformer;
  const apply = (name: string, cidrs: string[]) => {
    const cur = inf.items.get(name)!;
    inf.update(cur, { ...cur, spec: { ...cur.spec, podCIDRs: cidrs, podCIDR: cidrs[0] } });
  };
  const client: NodeIPAMApi = {
    patchNode: (async ({ name, body }: { name: string; body: (typeof patches)[number]['body'] }) => {
      patches.push({ name, body });
      const answer = answers.shift() ?? 'ok';
      if (answer instanceof Error) throw answer;
      if (answer === 'ok') apply(name, body.spec.podCIDRs);
      else apply(name, body.spec.podCIDRs); // landed, but the client saw an error
      if (answer === 'ok-but-lost') throw new Error('connection reset');
      return {};
    }) as unknown as NodeIPAMApi['patchNode'],
    readNode: (async ({ name }: { name: string }) => {
      const a = s.readAnswer?.(name) ?? inf.items.get(name);
      if (a === undefined) throw apiError(404, 'NotFound');
      if (a instanceof Error) throw a;
      return a;
    }) as unknown as NodeIPAMApi['readNode'],
  };
  const controller = new NodeIPAMController({
    client,
    informers,
    recorder,
    logger: silentLogger,
    config: {
      clusterCIDRs: s.cluster.map((c) => parseCIDR(c)),
      nodeCIDRMaskSizes: s.masks,
      serviceCIDRs: (s.service ?? []).map((c) => parseCIDR(c)),
      metrics: createCidrSetMetrics(new Registry()),
    },
  });
  const cidrsOf = (name: string) => inf.items.get(name)?.spec?.podCIDRs;
  /** Syncs every queued key until the queue is empty; returns the errors. */
  const drain = async (): Promise<unknown[]> => {
    const errors: unknown[] = [];
    while (controller.queue.len() > 0) {
      const key = (await controller.queue.get())!;
      try {
        await controller.syncNode(key);
      } catch (err) {
        errors.push(err);
      }
      controller.queue.done(key);
    }
    return errors;
  };
  return { controller, informers, inf, recorder, patches, cidrsOf, drain };
}

describe('node-ipam-controller: Nodes that already have CIDRs', () => {
  it.each([
    ['single stack, Node without CIDRs', ['10.10.0.0/16'], [24], undefined],
    ['dual stack, Node without CIDRs', ['10.10.0.0/16', 'ace:cab:deca::/8'], [24, 24], undefined],
    ['single stack, Node inside the pool', ['10.10.0.0/16'], [24], ['10.10.0.1/24']],
    ['dual stack, both inside the pools', ['10.10.0.0/16', 'ace:cab:deca::/8'], [24, 24], ['10.10.0.1/24', 'a00::/86']],
  ])('%s: no problem reported', async (_, cluster, masks, podCIDRs) => {
    const t = setup({ cluster, masks, nodes: [node('node0', podCIDRs)] });
    await t.controller.syncNode('node0');
    expect(t.recorder.lines).toEqual([]);
    if (podCIDRs) expect(t.patches).toEqual([]);
  });

  it.each([
    [
      'single stack, outside the pool',
      ['10.10.0.0/16'],
      ['172.10.0.1/24'],
      'podCIDRs[0] 172.10.0.1/24 is outside --cluster-cidr 10.10.0.0/16',
    ],
    [
      'two CIDRs but one pool',
      ['10.10.0.0/16'],
      ['10.10.0.1/24', 'a00::/86'],
      'podCIDRs[1] a00::/86 has no --cluster-cidr item of its own (1 configured)',
    ],
    [
      'dual stack, bad IPv4',
      ['10.10.0.0/16', 'ace:cab:deca::/8'],
      ['172.10.0.1/24', 'a00::/86'],
      'podCIDRs[0] 172.10.0.1/24 is outside --cluster-cidr 10.10.0.0/16',
    ],
    [
      'dual stack, bad IPv6',
      ['10.10.0.0/16', 'ace:cab:deca::/8'],
      ['10.10.0.1/24', 'cdd::/86'],
      'podCIDRs[1] cdd::/86 is outside --cluster-cidr a00::/8',
    ],
  ])(
    '%s: one Warning Event, the Node keeps its CIDRs, the rest of the pool works',
    async (_, cluster, podCIDRs, problem) => {
      const t = setup({ cluster, masks: cluster.map(() => 24), nodes: [node('bad', podCIDRs), node('fresh')] });
      t.controller.queue.add('bad');
      t.controller.queue.add('fresh');
      expect(await t.drain()).toEqual([]);
      expect(t.recorder.lines).toEqual([
        `Warning CIDRNotAvailable Node bad status is now: CIDRNotAvailable: ${problem}; the Node keeps it`,
      ]);
      expect(t.patches.map((p) => p.name)).toEqual(['fresh']);
      // Seen again (an update): no second Event.
      t.controller.queue.add('bad');
      await t.drain();
      expect(t.recorder.events).toHaveLength(1);
    },
  );

  it('the pools are rebuilt from every Node in the cache before the first allocation ("no double counting")', async () => {
    const t = setup({
      cluster: ['10.10.0.0/22'],
      masks: [24],
      nodes: [node('node0', ['10.10.0.0/24']), node('node1', ['10.10.2.0/24']), node('node2')],
    });
    await t.controller.syncNode('node2');
    expect(t.cidrsOf('node2')).toEqual(['10.10.1.0/24']);
    t.inf.add(node('node3'));
    await t.drain();
    expect(t.cidrsOf('node3')).toEqual(['10.10.3.0/24']);
  });

  it('two Nodes claiming one block: the second gets an Event naming the first; the block is not released by either delete until both are gone', async () => {
    const t = setup({
      cluster: ['10.10.0.0/24'],
      masks: [26],
      nodes: [node('a', ['10.10.0.0/26']), node('b', ['10.10.0.0/26']), node('c'), node('d'), node('e')],
    });
    for (const n of ['a', 'b', 'c', 'd', 'e']) t.controller.queue.add(n);
    expect(await t.drain()).toEqual([]);
    expect(t.recorder.lines).toEqual([
      'Warning CIDRNotAvailable Node b status is now: CIDRNotAvailable: podCIDRs[0] 10.10.0.0/26 overlaps what Node a holds; the Node keeps it',
    ]);
    expect(['c', 'd', 'e'].map(t.cidrsOf).flat().sort()).toEqual(['10.10.0.128/26', '10.10.0.192/26', '10.10.0.64/26']);
    // b is deleted: a still holds the block, so nothing is free.
    t.inf.remove('b');
    t.inf.add(node('f'));
    const errors = await t.drain();
    expect(errors).toHaveLength(1);
    expect(t.cidrsOf('f')).toBeUndefined();
    // a is deleted: its block goes to f, which was waiting.
    t.inf.remove('a');
    expect(await t.drain()).toEqual([]);
    expect(t.cidrsOf('f')).toEqual(['10.10.0.0/26']);
  });
});

describe('node-ipam-controller: allocation', () => {
  it.each([
    ['no Service range: the first block', ['127.123.234.0/24'], [30], [], [], ['127.123.234.0/30']],
    ['the Service range is skipped', ['127.123.234.0/24'], [30], ['127.123.234.0/26'], [], ['127.123.234.64/30']],
    [
      'blocks Nodes hold are skipped',
      ['127.123.234.0/24'],
      [30],
      ['127.123.234.0/26'],
      ['127.123.234.64/30', '127.123.234.68/30', '127.123.234.72/30', '127.123.234.80/30'],
      ['127.123.234.76/30'],
    ],
    [
      'dual stack IPv4 first',
      ['127.123.234.0/8', 'ace:cab:deca::/84'],
      [24, 98],
      ['127.123.234.0/26'],
      [],
      ['127.0.0.0/24', 'ace:cab:deca::/98'],
    ],
    [
      'dual stack IPv6 first',
      ['ace:cab:deca::/84', '127.123.234.0/8'],
      [98, 24],
      ['127.123.234.0/26'],
      [],
      ['ace:cab:deca::/98', '127.0.0.0/24'],
    ],
    [
      'a secondary Service range of the other family is skipped too',
      ['10.0.0.0/24', 'fd00::/120'],
      [26, 122],
      ['10.0.0.0/26', 'fd00::/122'],
      [],
      ['10.0.0.64/26', 'fd00::40/122'],
    ],
  ])('%s', async (_, cluster, masks, service, held, expected) => {
    const nodes = held.map((c, i) => node(`held${i}`, [c]));
    const t = setup({ cluster, masks, service, nodes: [...nodes, node('node0')] });
    await t.controller.syncNode('node0');
    expect(t.patches).toEqual([
      { name: 'node0', body: { metadata: { uid: 'uid-node0' }, spec: { podCIDR: expected[0], podCIDRs: expected } } },
    ]);
    expect(t.cidrsOf('node0')).toEqual(expected);
  });

  it('a full pool: no write, a CIDRNotAvailable Event, an error (requeued); a deleted Node lets the waiting one through at once', async () => {
    const held = ['127.123.234.0/30', '127.123.234.4/30', '127.123.234.8/30', '127.123.234.12/30'];
    const t = setup({
      cluster: ['127.123.234.0/28'],
      masks: [30],
      nodes: [...held.map((c, i) => node(`n${i}`, [c])), node('waiting')],
    });
    await expect(t.controller.syncNode('waiting')).rejects.toThrow(
      'failed to allocate cidr from cluster cidr 127.123.234.0/28: CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range',
    );
    expect(t.patches).toEqual([]);
    expect(t.recorder.lines).toEqual(['Warning CIDRNotAvailable Node waiting status is now: CIDRNotAvailable']);
    t.inf.remove('n1');
    expect(t.controller.queue.len()).toBe(2); // the deleted Node and the waiting one
    expect(await t.drain()).toEqual([]);
    expect(t.cidrsOf('waiting')).toEqual(['127.123.234.4/30']);
  });

  it.each([
    [
      'a preallocated block, released, is handed out',
      ['127.123.234.0/30', '127.123.234.4/30', '127.123.234.8/30', '127.123.234.12/30'],
      '127.123.234.4/30',
    ],
    [
      'a block handed out, released, is reused',
      ['127.123.234.4/30', '127.123.234.8/30', '127.123.234.12/30'],
      '127.123.234.0/30',
    ],
  ])('%s', async (_, held, expected) => {
    const t = setup({
      cluster: ['127.123.234.0/28'],
      masks: [30],
      nodes: [...held.map((c, i) => node(`h${i}`, [c])), node('x')],
    });
    if (held.length === 3) {
      await t.controller.syncNode('x');
      expect(t.cidrsOf('x')).toEqual(['127.123.234.0/30']);
      t.inf.remove('x');
    } else {
      t.inf.remove('h1');
    }
    t.inf.add(node('y'));
    await t.drain();
    expect(t.cidrsOf('y')).toEqual([expected]);
  });
});

describe('node-ipam-controller: writes that fail', () => {
  it('a write that landed though the client saw an error is found by the re-read: no Event, no second block', async () => {
    const t = setup({
      cluster: ['10.0.0.0/24'],
      masks: [26],
      nodes: [node('a'), node('b')],
      patchAnswers: ['ok-but-lost'],
    });
    await t.controller.syncNode('a');
    expect(t.cidrsOf('a')).toEqual(['10.0.0.0/26']);
    expect(t.recorder.lines).toEqual([]);
    await t.controller.syncNode('b');
    expect(t.cidrsOf('b')).toEqual(['10.0.0.64/26']);
  });

  it('a Node someone else gave CIDRs meanwhile (422): the reservation is released, theirs are marked used', async () => {
    let other: V1Node | undefined;
    const t = setup({
      cluster: ['10.0.0.0/24'],
      masks: [26],
      nodes: [node('a'), node('b')],
      patchAnswers: [apiError(422, 'Invalid')],
      readAnswer: (name) => (name === 'a' ? (other ??= node('a', ['10.0.0.128/26'])) : node(name)),
    });
    await t.controller.syncNode('a');
    expect(t.patches).toHaveLength(1);
    expect(t.recorder.lines).toEqual([]);
    t.inf.update(node('a', ['10.0.0.128/26']));
    await t.controller.syncNode('b');
    expect(t.cidrsOf('b')).toEqual(['10.0.0.64/26']);
    t.inf.add(node('c'));
    t.inf.add(node('d'));
    await t.drain();
    // c and d get the last free block and the released reservation; a's block is not handed out.
    expect([t.cidrsOf('c'), t.cidrsOf('d')].flat().sort()).toEqual(['10.0.0.0/26', '10.0.0.192/26']);
  });

  it('three failed writes with a known outcome: CIDRAssignmentFailed, the blocks are released, the error requeues', async () => {
    const t = setup({
      cluster: ['10.0.0.0/24'],
      masks: [26],
      nodes: [node('a')],
      patchAnswers: [apiError(500, 'InternalError'), apiError(500, 'InternalError'), apiError(500, 'InternalError')],
    });
    await expect(t.controller.syncNode('a')).rejects.toThrow();
    expect(t.patches).toHaveLength(3);
    expect(t.recorder.lines).toEqual(['Warning CIDRAssignmentFailed Node a status is now: CIDRAssignmentFailed']);
    expect(t.controller.allocator.holdsAny('a')).toBe(false);
    await t.controller.syncNode('a');
    expect(t.cidrsOf('a')).toEqual(['10.0.0.64/26']);
  });

  it('writes whose outcome is unknown (timeouts) keep their blocks reserved, so a late landing cannot be shared', async () => {
    const timeout = apiError(504, 'Timeout');
    const t = setup({
      cluster: ['10.0.0.0/25'],
      masks: [26],
      nodes: [node('a'), node('b')],
      patchAnswers: [timeout, timeout, timeout],
    });
    await expect(t.controller.syncNode('a')).rejects.toThrow();
    expect(t.controller.allocator.holdsAny('a')).toBe(true);
    await t.controller.syncNode('b');
    expect(t.cidrsOf('b')).toEqual(['10.0.0.64/26']); // not a's reserved block
  });

  it('a Node deleted while its write is in flight (404) releases the reservation', async () => {
    const t = setup({
      cluster: ['10.0.0.0/25'],
      masks: [26],
      nodes: [node('a'), node('b')],
      patchAnswers: [apiError(404, 'NotFound')],
    });
    await t.controller.syncNode('a');
    expect(t.controller.allocator.holdsAny('a')).toBe(false);
    await t.controller.syncNode('b');
    expect(t.cidrsOf('b')).toEqual(['10.0.0.64/26']);
  });

  it('a Node being deleted releases its blocks', async () => {
    const t = setup({
      cluster: ['10.0.0.0/25'],
      masks: [26],
      nodes: [node('a', ['10.0.0.0/26']), node('b', ['10.0.0.64/26'])],
    });
    await t.controller.syncNode('a');
    const deleting = { ...node('a', ['10.0.0.0/26']), metadata: { name: 'a', deletionTimestamp: new Date() } };
    t.inf.update(deleting);
    await t.drain();
    t.inf.add(node('c'));
    await t.drain();
    expect(t.cidrsOf('c')).toEqual(['10.0.0.0/26']);
  });
});

/**
 * The out-of-service taint's clock and writes over a fake Node client and a fake clock: the taint comes only
 * after the machine was seen shut down continuously for the duration, a "running" answer starts the clock over,
 * a deleted Node's clock is dropped, the taint and the annotation are written in one PATCH, and only a taint
 * with the annotation is removed.
 */
import type { NodeClient } from '@ccm-kit/cloud-provider';
import { RecordingEventRecorder, silentLogger } from '@ccm-kit/testing';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { OUT_OF_SERVICE_ANNOTATION, OutOfServiceTaints } from '../src/node-lifecycle/out-of-service.js';

function setup(node: V1Node) {
  let now = 0;
  let stored = node;
  const patches: object[] = [];
  const client: NodeClient = {
    getNode: async () => stored,
    patchNode: async (_name, patch) => {
      patches.push(patch);
      const p = patch as {
        metadata: { annotations: Record<string, string | null> };
        spec?: { taints?: V1Node['spec'] };
      };
      const annotations = { ...stored.metadata?.annotations, ...p.metadata.annotations };
      for (const [k, v] of Object.entries(annotations)) if (v === null) delete annotations[k];
      stored = {
        ...stored,
        metadata: { ...stored.metadata, annotations: annotations as Record<string, string> },
        spec: { ...stored.spec, taints: ((patch as { spec?: { taints?: unknown } }).spec?.taints ?? []) as never },
      };
      return stored;
    },
  };
  const recorder = new RecordingEventRecorder();
  const oos = new OutOfServiceTaints({ afterMs: 60_000, client, recorder, logger: silentLogger, now: () => now });
  return {
    oos,
    recorder,
    patches,
    node: () => stored,
    advance: (ms: number) => (now += ms),
  };
}

const fresh = (): V1Node => ({ metadata: { name: 'n1', uid: 'u1', resourceVersion: '7' }, spec: {} });

describe('OutOfServiceTaints', () => {
  it('adds the taint and the annotation in one PATCH once the machine was shut down for the whole duration', async () => {
    const t = setup(fresh());
    await t.oos.shutDown(t.node());
    t.advance(59_999);
    await t.oos.shutDown(t.node());
    expect(t.patches).toEqual([]);
    t.advance(1);
    await t.oos.shutDown(t.node());
    expect(t.patches).toHaveLength(1);
    expect(t.patches[0]).toMatchObject({
      metadata: { resourceVersion: '7', annotations: { [OUT_OF_SERVICE_ANNOTATION]: '1970-01-01T00:01:00.000Z' } },
      spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] },
    });
    expect(t.recorder.lines).toEqual([
      'Normal OutOfServiceTaintAdded Added taint node.kubernetes.io/out-of-service=nodeshutdown:NoExecute: the machine has been shut down for 1m0s',
    ]);
    await t.oos.shutDown(t.node());
    expect(t.patches).toHaveLength(1);
  });

  it('a running answer in between starts the clock over', async () => {
    const t = setup(fresh());
    await t.oos.shutDown(t.node());
    t.advance(50_000);
    await t.oos.running(t.node());
    await t.oos.shutDown(t.node());
    t.advance(50_000);
    await t.oos.shutDown(t.node());
    expect(t.patches).toEqual([]);
  });

  it('a deleted Node loses its clock', async () => {
    const t = setup(fresh());
    await t.oos.shutDown(t.node());
    t.advance(50_000);
    t.oos.forgetAllBut(new Set(['other']));
    t.advance(20_000);
    await t.oos.shutDown(t.node());
    expect(t.patches).toEqual([]);
  });

  it('removes only a taint it added, with the annotation', async () => {
    const t = setup(fresh());
    await t.oos.shutDown(t.node());
    t.advance(60_000);
    await t.oos.shutDown(t.node());
    await t.oos.running(t.node());
    expect(t.patches[1]).toMatchObject({ metadata: { annotations: { [OUT_OF_SERVICE_ANNOTATION]: null } } });
    expect(t.node().spec?.taints).toEqual([]);
    expect(t.recorder.lines[1]).toBe(
      'Normal OutOfServiceTaintRemoved Removed taint node.kubernetes.io/out-of-service: the machine runs again',
    );

    const person = setup({
      ...fresh(),
      spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] },
    });
    await person.oos.running(person.node());
    await person.oos.shutDown(person.node());
    person.advance(120_000);
    await person.oos.shutDown(person.node());
    await person.oos.running(person.node());
    expect(person.patches).toEqual([]);
  });
});

/**
 * The opt-in out-of-service taint of cloud-node-lifecycle-controller against a real kube-apiserver with
 * FakeCloud, running through its descriptor: added (with its annotation and an Event) only after the machine
 * stayed shut down for `--out-of-service-taint-after`, removed once the machine is back on; never on a cloud
 * error; a person's taint is kept; off by default.
 */
import { FakeCloud, kubeletNode } from '@ccm-kit/testing';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { cloudNodeLifecycleController } from '../src/node-lifecycle/descriptor.js';
import { OUT_OF_SERVICE_ANNOTATION } from '../src/node-lifecycle/out-of-service.js';
import { useNodeTestEnv, userTaints } from './cloud-node-harness.js';

const env = useNodeTestEnv();
const OOS = 'node.kubernetes.io/out-of-service';
const SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';
const oosTaints = (n: V1Node | undefined) => userTaints(n).filter((t) => t.key === OOS);
const start = (cloud: FakeCloud, outOfServiceTaintAfterMs: number) =>
  env.startController(cloudNodeLifecycleController, cloud, { nodeMonitorPeriodMs: 200, outOfServiceTaintAfterMs });
/** Waits for `count` more cloud shutdown answers: that many passes have run. */
const passes = (cloud: FakeCloud, count: number) => {
  const now = cloud.calls.filter((c) => c.includes('shutdown')).length;
  return eventuallyValue(
    () => cloud.calls.filter((c) => c.includes('shutdown')).length >= now + count,
    `${count} passes`,
  );
};

describe('cloud-node-lifecycle-controller --out-of-service-taint-after', () => {
  it('machine shut down long enough → taint, annotation and Event; machine back on → taint gone', async () => {
    const name = env.name('oos-cycle');
    const cloud = new FakeCloud({ enableInstancesV2: true });
    cloud.setInstance(`fake://${name}`, { shutdown: true });
    const { stop } = await start(cloud, 1_500);
    try {
      await env.createNode(kubeletNode(name, { taints: [], providerID: `fake://${name}`, ready: 'False' }));
      // The shutdown taint comes at once; the out-of-service taint not before the 1.5 s.
      const shutdownAt = Date.now();
      await eventuallyValue(
        async () => userTaints(await env.getNode(name)).some((t) => t.key === SHUTDOWN),
        'shutdown taint',
      );
      expect(oosTaints(await env.getNode(name))).toEqual([]);
      const tainted = await eventuallyValue(async () => {
        const n = await env.getNode(name);
        return oosTaints(n).length > 0 ? n : undefined;
      }, 'the out-of-service taint');
      expect(Date.now() - shutdownAt).toBeGreaterThanOrEqual(1_000);
      expect(oosTaints(tainted)).toMatchObject([{ key: OOS, value: 'nodeshutdown', effect: 'NoExecute' }]);
      expect(tainted.metadata?.annotations?.[OUT_OF_SERVICE_ANNOTATION]).toMatch(/^\d{4}-\d\d-\d\dT/);
      const added = await eventuallyValue(
        async () => (await env.nodeEvents(name)).find((e) => e.reason === 'OutOfServiceTaintAdded'),
        'OutOfServiceTaintAdded',
      );
      expect(added).toMatchObject({ type: 'Normal', source: { component: 'cloud-node-lifecycle-controller' } });
      expect(added.message).toMatch(
        /^Added taint node\.kubernetes\.io\/out-of-service=nodeshutdown:NoExecute: the machine has been shut down for /,
      );

      // The machine is back on (not Ready yet): the taint and the annotation go, with an Event.
      cloud.setInstance(`fake://${name}`, { shutdown: false });
      const back = await eventuallyValue(async () => {
        const n = await env.getNode(name);
        return oosTaints(n).length === 0 ? n : undefined;
      }, 'the out-of-service taint removed');
      expect(back.metadata?.annotations?.[OUT_OF_SERVICE_ANNOTATION]).toBeUndefined();
      await eventuallyValue(
        async () => (await env.nodeEvents(name)).some((e) => e.reason === 'OutOfServiceTaintRemoved'),
        'OutOfServiceTaintRemoved',
      );
    } finally {
      await stop();
    }
  });

  it("a person's out-of-service taint is kept: never removed, never annotated, with the machine on or off", async () => {
    const name = env.name('oos-person');
    const cloud = new FakeCloud({ enableInstancesV2: true });
    cloud.setInstance(`fake://${name}`, { shutdown: false });
    const theirs = { key: OOS, value: 'nodeshutdown', effect: 'NoExecute' };
    await env.createNode(kubeletNode(name, { taints: [theirs], providerID: `fake://${name}`, ready: 'False' }));
    const { stop } = await start(cloud, 300);
    try {
      await passes(cloud, 4);
      cloud.setInstance(`fake://${name}`, { shutdown: true });
      await passes(cloud, 6); // 1.2 s shut down: past the 300 ms
      cloud.setInstance(`fake://${name}`, { shutdown: false });
      await passes(cloud, 4);
      const n = await env.getNode(name);
      expect(oosTaints(n)).toEqual([theirs]);
      expect(n?.metadata?.annotations?.[OUT_OF_SERVICE_ANNOTATION]).toBeUndefined();
      expect((await env.nodeEvents(name)).filter((e) => e.reason?.startsWith('OutOfService'))).toEqual([]);
    } finally {
      await stop();
    }
  });

  it('never on a cloud error, and not on Ready Nodes', async () => {
    const failing = env.name('oos-error');
    const ready = env.name('oos-ready');
    const cloud = new FakeCloud({ existsByProviderID: true, errShutdownByProviderID: new Error('cloud unavailable') });
    const { stop } = await start(cloud, 200);
    try {
      await env.createNode(kubeletNode(failing, { taints: [], providerID: `fake://${failing}`, ready: 'False' }));
      await env.createNode(kubeletNode(ready, { taints: [], providerID: `fake://${ready}`, ready: 'True' }));
      await passes(cloud, 8);
      expect(oosTaints(await env.getNode(failing))).toEqual([]);
      expect(oosTaints(await env.getNode(ready))).toEqual([]);
    } finally {
      await stop();
    }
  });

  it('off by default: a machine shut down for long gets only the shutdown taint', async () => {
    const name = env.name('oos-off');
    const cloud = new FakeCloud({ enableInstancesV2: true });
    cloud.setInstance(`fake://${name}`, { shutdown: true });
    const { stop } = await env.startController(cloudNodeLifecycleController, cloud, { nodeMonitorPeriodMs: 200 });
    try {
      await env.createNode(kubeletNode(name, { taints: [], providerID: `fake://${name}`, ready: 'False' }));
      await passes(cloud, 6);
      const n = await env.getNode(name);
      expect(userTaints(n).map((t) => t.key)).toEqual([SHUTDOWN]);
      expect(n?.metadata?.annotations?.[OUT_OF_SERVICE_ANNOTATION]).toBeUndefined();
    } finally {
      await stop();
    }
  });
});

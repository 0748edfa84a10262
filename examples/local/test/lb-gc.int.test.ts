/**
 * service-lb-gc-controller with the local provider against a real kube-apiserver. The provider (and its data
 * plane) keeps running while service-lb-controller is stopped, as a provider process does while its controllers
 * are down; a Service loses its finalizer and is deleted meanwhile. The collector, in dry run, reports the orphan
 * and leaves its listener open; in delete mode, after the grace period, it closes that listener, releases its
 * address, and leaves the other Service's load balancer alone.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOAD_BALANCER_CLEANUP_FINALIZER } from '@ccm-kit/cloud-provider';
import { serviceLbController, serviceLbGcController } from '@ccm-kit/controllers';
import { isGone, TestCluster } from '@ccm-kit/testing';
import { eventually, startControllerUnderTest, useControlPlane } from '@ccm-kit/testing/vitest';
import type { V1Service } from '@kubernetes/client-node';
import { patchOptions } from '@ccm-kit/runtime/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LocalCloud } from '../src/provider.js';

const cp = useControlPlane();
let dir: string;
let cluster: TestCluster;
let cloud: LocalCloud;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccm-local-gc-'));
  await writeFile(join(dir, 'inventory.yaml'), 'machines: []\n');
  cloud = await LocalCloud.create(
    `clusterID: gc\ninventory: ${join(dir, 'inventory.yaml')}\ndrainTimeout: 0s\npools:\n  - name: global\n    addresses: [127.0.6.0/24]\n`,
  );
  cluster = new TestCluster(cp());
});
afterAll(async () => {
  await cluster?.stop();
  await cloud?.shutdown(AbortSignal.timeout(5_000));
  await rm(dir, { recursive: true, force: true });
});

/** `open` when a TCP connection to ip:port is accepted, `refused` otherwise. */
function probe(ip: string, port: number): Promise<'open' | 'refused'> {
  return new Promise((resolve) => {
    const socket = connect({ host: ip, port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('error', () => resolve('refused'));
    socket.once('timeout', () => {
      socket.destroy();
      resolve('refused');
    });
  });
}

const ingressIP = (s: V1Service) => s.status?.loadBalancer?.ingress?.[0]?.ip;

it('dry run reports a Service deleted without its finalizer while the controllers were down; delete mode removes its load balancer', async () => {
  const core = cluster.core;
  const namespace = await cluster.createNamespace('local-gc');
  const lbCtl = await startControllerUnderTest({
    cluster,
    cloud,
    controller: serviceLbController,
    config: { clusterName: 'gc' },
  });
  let orphan: V1Service;
  let alive: V1Service;
  try {
    for (const [name, port] of [
      ['orphan', 18080],
      ['alive', 18081],
    ] as const) {
      await core.createNamespacedService({
        namespace,
        body: {
          metadata: { name },
          spec: { type: 'LoadBalancer', ports: [{ port, protocol: 'TCP', targetPort: 8080 }] },
        },
      });
    }
    [orphan, alive] = await eventually(async () => {
      const out = [];
      for (const name of ['orphan', 'alive']) {
        const s = await core.readNamespacedService({ namespace, name });
        expect(ingressIP(s)).toBeDefined();
        expect(s.metadata?.finalizers).toContain(LOAD_BALANCER_CLEANUP_FINALIZER);
        out.push(s);
      }
      return out;
    });
  } finally {
    await lbCtl.stop();
  }
  expect(await probe(ingressIP(orphan)!, 18080)).toBe('open');
  await core.patchNamespacedService(
    { namespace, name: 'orphan', body: { metadata: { finalizers: null } } },
    patchOptions('merge'),
  );
  await core.deleteNamespacedService({ namespace, name: 'orphan' });
  await eventually(async () =>
    expect(await isGone(core.readNamespacedService({ namespace, name: 'orphan' }))).toBe(true),
  );

  const dry = await startControllerUnderTest({
    cluster,
    cloud,
    controller: serviceLbGcController,
    config: { clusterName: 'gc', loadBalancerGC: { mode: 'dry-run', gracePeriodMs: 500, periodMs: 250 } },
  });
  try {
    const warned = await eventually(async () => {
      const events = (await core.listNamespacedEvent({ namespace })).items.filter(
        (e) => e.reason === 'OrphanedLoadBalancer',
      );
      expect(events).toHaveLength(1);
      return events[0]!;
    });
    expect(warned.involvedObject).toMatchObject({ name: 'orphan', uid: orphan.metadata?.uid });
  } finally {
    await dry.stop();
  }
  expect(await probe(ingressIP(orphan)!, 18080)).toBe('open');
  expect(cloud.localLoadBalancer.ipam.get(orphan.metadata!.uid!)).toEqual([ingressIP(orphan)]);

  const gc = await startControllerUnderTest({
    cluster,
    cloud,
    controller: serviceLbGcController,
    config: { clusterName: 'gc', loadBalancerGC: { mode: 'delete', gracePeriodMs: 1_000, periodMs: 250 } },
  });
  try {
    await eventually(async () => expect(await probe(ingressIP(orphan)!, 18080)).toBe('refused'), { timeoutMs: 20_000 });
    expect(cloud.localLoadBalancer.ipam.get(orphan.metadata!.uid!)).toBeUndefined();
    expect(await probe(ingressIP(alive)!, 18081)).toBe('open');
    // The Event is posted by the event broadcaster after the delete returned: wait for it.
    await eventually(async () => {
      const deleted = (await core.listNamespacedEvent({ namespace })).items.filter(
        (e) => e.reason === 'DeletedOrphanedLoadBalancer',
      );
      expect(deleted.map((e) => e.involvedObject.uid)).toEqual([orphan.metadata?.uid]);
    });
  } finally {
    await gc.stop();
  }
});

/**
 * The default Node transform drops `status.images` from the cache; writes built from the trimmed object
 * (cloud-node's PUT of the Node, status patches) must leave the server's images alone.
 */
import { randomUUID } from 'node:crypto';
import { useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClientFactory,
  CoreV1Client,
  createClientFactory,
  identityTransform,
  patchOptions,
  SharedInformerFactory,
} from '../src/index.js';
import { until } from './informer-int-helpers.js';

const cp = useControlPlane();

const images = [
  { names: ['registry.k8s.io/pause@sha256:aaaa', 'registry.k8s.io/pause:3.10'], sizeBytes: 320368 },
  { names: ['docker.io/library/nginx:1.27'], sizeBytes: 72000000 },
];

describe('the default Node transform against a real API server', () => {
  let admin: ClientFactory;
  let core: CoreV1Api;
  beforeAll(() => {
    admin = createClientFactory({ kubeConfig: cp().kubeConfig, qps: -1 });
    core = admin.client('test-admin', CoreV1Api);
  });
  afterAll(async () => {
    await admin?.close();
  });

  async function createNode(name: string, id: string): Promise<void> {
    await core.createNode({ body: { metadata: { name, labels: { 'ccm-kit-test': id } } } });
    await core.patchNodeStatus(
      {
        name,
        body: {
          status: {
            images,
            addresses: [{ type: 'Hostname', address: name }],
            nodeInfo: { kubeletVersion: 'v1.36.4' } as never,
            capacity: { cpu: '4' },
          },
        },
      },
      patchOptions('merge'),
    );
  }

  it('caches Nodes without status.images; a PUT of the cached Node and status patches keep the server copy whole', async () => {
    const id = randomUUID().slice(0, 8);
    const name = `trim-${id}`;
    await createNode(name, id);
    const clients = createClientFactory({ kubeConfig: cp().kubeConfig, qps: -1 });
    const factory = new SharedInformerFactory(clients);
    const inf = factory.nodes();
    const ac = new AbortController();
    try {
      factory.start(ac.signal);
      expect(await factory.waitForCacheSync(ac.signal)).toBe(true);
      await until(() => inf.lister.get(name) !== undefined, 15_000, 'the node in the cache');
      const cached = inf.lister.get(name) as V1Node;
      expect(cached.status?.images).toBeUndefined();
      expect(cached.status?.addresses).toEqual([{ type: 'Hostname', address: name }]);
      expect(cached.status?.nodeInfo?.kubeletVersion).toBe('v1.36.4');
      expect(cached.status?.capacity).toEqual({ cpu: '4' });
      expect(cached.metadata?.managedFields).toBeUndefined();

      // What cloud-node does: PUT the cached Node with its changes, then patch the status.
      const raw = clients.client('node-controller', CoreV1Client);
      const updated: V1Node = structuredClone(cached);
      updated.metadata!.labels = { ...updated.metadata!.labels, initialized: 'yes' };
      updated.spec = { ...updated.spec, providerID: `fake://${name}` };
      await raw.replaceNode({ name, body: updated });
      await raw.patchNodeStatus(
        { name, body: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.9' }] } } },
        patchOptions('strategic'),
      );
      const server = await core.readNode({ name });
      expect(server.metadata?.labels?.initialized).toBe('yes');
      expect(server.spec?.providerID).toBe(`fake://${name}`);
      expect(server.status?.images).toEqual(images);
      expect(server.status?.nodeInfo?.kubeletVersion).toBe('v1.36.4');
      expect(server.metadata?.managedFields?.length).toBeGreaterThan(0);
    } finally {
      ac.abort();
      await factory.shutdown();
      await clients.close();
      await core.deleteNode({ name });
    }
  });

  it('a vendor override per resource keeps whole Nodes', async () => {
    const id = randomUUID().slice(0, 8);
    const name = `whole-${id}`;
    await createNode(name, id);
    const clients = createClientFactory({ kubeConfig: cp().kubeConfig, qps: -1 });
    const factory = new SharedInformerFactory(clients, { transforms: { '/api/v1/nodes': identityTransform } });
    const inf = factory.nodes();
    const ac = new AbortController();
    try {
      factory.start(ac.signal);
      expect(await factory.waitForCacheSync(ac.signal)).toBe(true);
      await until(() => inf.lister.get(name) !== undefined, 15_000, 'the node in the cache');
      expect(inf.lister.get(name)?.status?.images).toEqual(images);
      expect(inf.lister.get(name)?.metadata?.managedFields?.length).toBeGreaterThan(0);
    } finally {
      ac.abort();
      await factory.shutdown();
      await clients.close();
      await core.deleteNode({ name });
    }
  });
});

/**
 * The default Node transform drops `status.images` from the cache; writes built from the trimmed object
 * (cloud-node's PUT of the Node, status patches) must leave the server's images alone.
 */
import { randomUUID } from 'node:crypto';
import { useControlPlane } from '@ccm-kit/testing/vitest';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { type ClientFactory, CoreV1Client, createClientFactory, patchOptions } from '../src/client/index.js';
import { identityTransform, SharedInformerFactory, type SharedInformerFactoryOptions } from '../src/informers/index.js';
import { until, useAdminCore } from './informer-int-helpers.js';

const cp = useControlPlane();

const images = [
  { names: ['registry.k8s.io/pause@sha256:aaaa', 'registry.k8s.io/pause:3.10'], sizeBytes: 320368 },
  { names: ['docker.io/library/nginx:1.27'], sizeBytes: 72000000 },
];

describe('the default Node transform against a real API server', () => {
  const admin = useAdminCore(cp);

  /**
   * Creates a Node with images, runs a Node informer (factory options `opts`) until it caches it, and calls
   * `check` with the cached Node and the informer's clients; cleans up after.
   */
  async function withCachedNode(
    prefix: string,
    opts: SharedInformerFactoryOptions,
    check: (name: string, cached: V1Node, clients: ClientFactory) => Promise<void>,
  ): Promise<void> {
    const name = `${prefix}-${randomUUID().slice(0, 8)}`;
    const core = admin();
    await core.createNode({ body: { metadata: { name, labels: { 'ccm-kit-test': prefix } } } });
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
    const clients = createClientFactory({ kubeConfig: cp().kubeConfig, qps: -1 });
    const factory = new SharedInformerFactory(clients, opts);
    const inf = factory.nodes();
    const ac = new AbortController();
    try {
      factory.start(ac.signal);
      expect(await factory.waitForCacheSync(ac.signal)).toBe(true);
      await until(() => inf.lister.get(name) !== undefined, 15_000, 'the node in the cache');
      await check(name, inf.lister.get(name) as V1Node, clients);
    } finally {
      ac.abort();
      await factory.shutdown();
      await clients.close();
      await core.deleteNode({ name });
    }
  }

  it('caches Nodes without status.images; a PUT of the cached Node and status patches keep the server copy whole', async () => {
    await withCachedNode('trim', {}, async (name, cached, clients) => {
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
      const server = await admin().readNode({ name });
      expect(server.metadata?.labels?.initialized).toBe('yes');
      expect(server.spec?.providerID).toBe(`fake://${name}`);
      expect(server.status?.images).toEqual(images);
      expect(server.status?.nodeInfo?.kubeletVersion).toBe('v1.36.4');
      expect(server.metadata?.managedFields?.length).toBeGreaterThan(0);
    });
  });

  it('a vendor override per resource keeps whole Nodes', async () => {
    await withCachedNode('whole', { transforms: { '/api/v1/nodes': identityTransform } }, async (_name, cached) => {
      expect(cached.status?.images).toEqual(images);
      expect(cached.metadata?.managedFields?.length).toBeGreaterThan(0);
    });
  });
});

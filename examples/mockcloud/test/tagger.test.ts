import { type CloudProvider, LABEL_TOPOLOGY_ZONE } from '@ccm-kit/cloud-provider';
import { type ControllerContext, defaultCloudControllerConfig } from '@ccm-kit/controllers';
import { MemoryInformer, RecordingLogger } from '@ccm-kit/testing';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import type { V1Node } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import type { Server } from '../src/client/index.js';
import {
  LABEL_CLUSTER_ID,
  LABEL_NODE_NAME,
  LABEL_NODE_ZONE,
  MOCKCLOUD_TAGGER_CONTROLLER,
  MockCloudProvider,
  planServerLabels,
  TaggerController,
  taggerController,
} from '../src/index.js';
import { fastClient, node, startApi, testConfig } from './helpers.js';

/** Polls every 10 ms for up to 5 s. */
const POLL = { timeoutMs: 5_000, intervalMs: 10 };

function server(id: string, labels: Record<string, string> = {}): Server {
  return {
    id,
    name: id,
    labels,
    status: 'running',
    privateIP: '10.0.0.1',
    zone: 'z',
    region: 'r',
    type: 't',
  };
}

describe('tagger: planServerLabels', () => {
  it("labels each Node's server with the cluster, Node name and zone, keeping other labels", () => {
    const plan = planServerLabels(
      [node('n1', 'mockcloud://s1', { [LABEL_TOPOLOGY_ZONE]: 'eu-1a' })],
      [server('s1', { team: 'x' })],
      'c1',
    );
    expect(plan).toEqual([
      {
        serverID: 's1',
        action: 'tag',
        labels: { team: 'x', [LABEL_CLUSTER_ID]: 'c1', [LABEL_NODE_NAME]: 'n1', [LABEL_NODE_ZONE]: 'eu-1a' },
      },
    ]);
  });

  it('plans nothing when the labels are already right', () => {
    const labels = { [LABEL_CLUSTER_ID]: 'c1', [LABEL_NODE_NAME]: 'n1' };
    expect(planServerLabels([node('n1', 'mockcloud://s1')], [server('s1', labels)], 'c1')).toEqual([]);
  });

  it('removes a zone label the Node no longer has', () => {
    const labels = { [LABEL_CLUSTER_ID]: 'c1', [LABEL_NODE_NAME]: 'n1', [LABEL_NODE_ZONE]: 'old' };
    expect(planServerLabels([node('n1', 'mockcloud://s1')], [server('s1', labels)], 'c1')).toEqual([
      { serverID: 's1', action: 'tag', labels: { [LABEL_CLUSTER_ID]: 'c1', [LABEL_NODE_NAME]: 'n1' } },
    ]);
  });

  it("untags servers of this cluster whose Node is gone, and leaves other clusters' servers alone", () => {
    const ours = { keep: 'me', [LABEL_CLUSTER_ID]: 'c1', [LABEL_NODE_NAME]: 'old', [LABEL_NODE_ZONE]: 'z' };
    const theirs = { [LABEL_CLUSTER_ID]: 'c2', [LABEL_NODE_NAME]: 'x' };
    expect(planServerLabels([], [server('s1', ours), server('s2', theirs), server('s3')], 'c1')).toEqual([
      { serverID: 's1', action: 'untag', labels: { keep: 'me' } },
    ]);
  });

  it('ignores Nodes without a mockcloud providerID and servers no Node points at', () => {
    const nodes = [node('a'), node('b', 'aws:///x/i-1'), node('c', 'mockcloud://'), node('d', 'mockcloud://missing')];
    expect(planServerLabels(nodes, [server('s1')], 'c1')).toEqual([]);
  });
});

describe('tagger: controller against the mock API', () => {
  let api: MockCloudApiServer;
  let informer: MemoryInformer<V1Node>;
  beforeEach(async () => {
    api = await startApi();
    informer = new MemoryInformer<V1Node>();
  });
  afterEach(async () => {
    await api.close();
  });

  function tagger(periodMs = 60_000) {
    return new TaggerController({
      client: fastClient(api),
      nodes: informer,
      clusterID: 'c1',
      periodMs,
      minIntervalMs: 10,
      logger: new RecordingLogger(),
    });
  }

  it('applies one pass and is idempotent', async () => {
    const s1 = api.state.addServer({ name: 'n1' });
    const s2 = api.state.addServer({ name: 'n2' });
    informer.update(node('n1', `mockcloud://${s1.id}`, { [LABEL_TOPOLOGY_ZONE]: 'z1' }));
    informer.update(node('n2', `mockcloud://${s2.id}`));
    const t = tagger();
    expect(await t.runOnce()).toEqual({ updated: 2, failed: 0 });
    expect(api.state.getServer(s1.id)!.labels).toEqual({
      [LABEL_CLUSTER_ID]: 'c1',
      [LABEL_NODE_NAME]: 'n1',
      [LABEL_NODE_ZONE]: 'z1',
    });
    expect(await t.runOnce()).toEqual({ updated: 0, failed: 0 });
  });

  it('counts per-server failures and carries on', async () => {
    const s1 = api.state.addServer({ name: 'n1' });
    const s2 = api.state.addServer({ name: 'n2' });
    informer.update(node('n1', `mockcloud://${s1.id}`));
    informer.update(node('n2', `mockcloud://${s2.id}`));
    api.injectFault({ status: 422, method: 'PATCH', pathPrefix: `/v1/servers/${s1.id}` });
    expect(await tagger().runOnce()).toEqual({ updated: 1, failed: 1 });
    expect(api.state.getServer(s2.id)!.labels[LABEL_NODE_NAME]).toBe('n2');
  });

  it('runs after sync, reacts to Node changes, and stops when the signal aborts', async () => {
    const s1 = api.state.addServer({ name: 'n1' });
    informer.synced = false;
    const t = tagger();
    const ac = new AbortController();
    const done = t.run(ac.signal);
    await new Promise((r) => setTimeout(r, 50));
    expect(api.requests()).toHaveLength(0); // waits for the informer
    informer.update(node('n1', `mockcloud://${s1.id}`));
    informer.synced = true;
    await eventuallyValue(() => api.state.getServer(s1.id)!.labels[LABEL_NODE_NAME] === 'n1', POLL);
    // A zone change nudges a pass long before the 60 s period.
    informer.update(node('n1', `mockcloud://${s1.id}`, { [LABEL_TOPOLOGY_ZONE]: 'z9' }));
    await eventuallyValue(() => api.state.getServer(s1.id)!.labels[LABEL_NODE_ZONE] === 'z9', POLL);
    // Deleting the Node untags its server.
    informer.remove('n1');
    await eventuallyValue(() => api.state.getServer(s1.id)!.labels[LABEL_CLUSTER_ID] === undefined, POLL);
    ac.abort();
    await done;
    expect(informer.handlers).toHaveLength(0);
    expect(t.consecutiveFailures).toBe(0);
  });

  it('counts consecutive failed passes', async () => {
    api.injectFault({ status: 500 });
    const t = tagger(1_000);
    const ac = new AbortController();
    const done = t.run(ac.signal);
    await eventuallyValue(() => t.consecutiveFailures >= 1, POLL);
    ac.abort();
    await done;
  });
});

describe('tagger: descriptor', () => {
  let api: MockCloudApiServer;
  beforeEach(async () => {
    api = await startApi();
  });
  afterEach(async () => {
    await api.close();
  });

  function context(cloud: CloudProvider, informer: MemoryInformer<V1Node>, signal: AbortSignal): ControllerContext {
    return {
      cloud,
      clients: {
        config: () => {
          throw new Error('unused');
        },
        client: () => {
          throw new Error('unused');
        },
      },
      informers: {
        nodes: () => informer,
        services: () => {
          throw new Error('the tagger does not use the Service informer');
        },
      },
      config: defaultCloudControllerConfig,
      signal,
      logger: new RecordingLogger(),
    };
  }

  it('is a disabled-by-default vendor controller with its own client name', () => {
    expect(taggerController).toMatchObject({
      name: MOCKCLOUD_TAGGER_CONTROLLER,
      aliases: ['mockcloud-tagger'],
      clientName: 'mockcloud-tagger',
      disabledByDefault: true,
    });
    expect(MOCKCLOUD_TAGGER_CONTROLLER).toMatch(/^[a-z]([-a-z]*[a-z])?$/);
    expect(MOCKCLOUD_TAGGER_CONTROLLER.endsWith('-controller')).toBe(true);
  });

  it('does not start for another provider', async () => {
    const other: CloudProvider = { providerName: () => 'fake', hasClusterID: () => true };
    const r = await taggerController.init(context(other, new MemoryInformer<V1Node>(), new AbortController().signal));
    expect(r).toEqual({ started: false, reason: 'the cloud provider is fake, not mockcloud' });
  });

  it('starts on the shared Node informer, stops with the signal and reports health', async () => {
    const s1 = api.state.addServer({ name: 'n1' });
    const informer = new MemoryInformer<V1Node>();
    informer.update(node('n1', `mockcloud://${s1.id}`));
    const cloud = new MockCloudProvider(testConfig(api), { logger: new RecordingLogger() });
    const ac = new AbortController();
    const r = await taggerController.init(context(cloud, informer, ac.signal));
    expect(r.started).toBe(true);
    await eventuallyValue(() => api.state.getServer(s1.id)!.labels[LABEL_CLUSTER_ID] === 'test-cluster', POLL);
    expect(() => r.healthCheck?.()).not.toThrow();
    ac.abort();
    await r.done;
  });
});

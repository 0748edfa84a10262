import { InstanceNotFoundError } from '@ccm-kit/cloud-provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import { MockCloudApiError, MockCloudTimeoutError } from '../src/client/index.js';
import { type MockCloudConfig, MockCloudProvider } from '../src/index.js';
import { RecordingLogger } from '@ccm-kit/testing';
import { node, startApi, testConfig } from './helpers.js';

let api: MockCloudApiServer;
let now = 0;

function provider(config: Partial<MockCloudConfig> = {}): MockCloudProvider {
  return new MockCloudProvider({ ...testConfig(api), ...config }, { now: () => now, logger: new RecordingLogger() });
}

const lists = () => api.requests().filter((r) => r.path.startsWith('/v1/servers?'));

beforeEach(async () => {
  now = 0;
  api = await startApi();
});
afterEach(async () => {
  await api.close();
});

describe('InstancesV2: lookups', () => {
  it('answers by providerID with full metadata', async () => {
    const s = api.state.addServer({
      name: 'node-a',
      zone: 'eu-1a',
      region: 'eu-1',
      type: 'cx22',
      private_ip: '10.0.0.5',
      public_ip: '198.51.100.5',
    });
    const i = provider().instancesV2();
    const n = node('node-a', `mockcloud://${s.id}`);
    expect(await i.instanceExists(n)).toBe(true);
    expect(await i.instanceShutdown(n)).toBe(false);
    expect(await i.instanceMetadata(n)).toEqual({
      providerID: `mockcloud://${s.id}`,
      instanceType: 'cx22',
      zone: 'eu-1a',
      region: 'eu-1',
      nodeAddresses: [
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'ExternalIP', address: '198.51.100.5' },
        { type: 'Hostname', address: 'node-a' },
      ],
    });
  });

  it('looks a Node up by name while it has no providerID', async () => {
    const s = api.state.addServer({ name: 'node-b', public_ip: null });
    const i = provider().instancesV2();
    const meta = await i.instanceMetadata(node('node-b'));
    expect(meta?.providerID).toBe(`mockcloud://${s.id}`);
    expect(meta?.nodeAddresses?.map((a) => a.type)).toEqual(['InternalIP', 'Hostname']);
    expect(await i.instanceExists(node('node-b', ''))).toBe(true);
  });

  it('reports a stopped server as existing and shut down', async () => {
    const s = api.state.addServer({ name: 'node-c', status: 'off' });
    const i = provider().instancesV2();
    const n = node('node-c', `mockcloud://${s.id}`);
    expect(await i.instanceExists(n)).toBe(true);
    expect(await i.instanceShutdown(n)).toBe(true);
  });

  it('reports "does not exist" only when the API confirms it', async () => {
    const i = provider().instancesV2();
    expect(await i.instanceExists(node('ghost', 'mockcloud://srv-999999'))).toBe(false);
    expect(await i.instanceExists(node('ghost'))).toBe(false);
    expect(await i.instanceShutdown(node('ghost'))).toBe(false);
    await expect(i.instanceMetadata(node('ghost'))).rejects.toThrow(InstanceNotFoundError);
    await expect(i.instanceMetadata(node('ghost', 'mockcloud://srv-999999'))).rejects.toThrow(
      'instance not found: no mockcloud server with providerID mockcloud://srv-999999',
    );
    expect(api.requests().some((r) => r.path === '/v1/servers/srv-999999' && r.status === 404)).toBe(true);
  });

  it('refuses foreign or malformed providerIDs, ambiguous names and nameless Nodes', async () => {
    api.state.addServer({ name: 'twin' });
    api.state.addServer({ name: 'twin' });
    const i = provider().instancesV2();
    await expect(i.instanceExists(node('x', 'aws:///eu-west-1a/i-123'))).rejects.toThrow(
      'node x has providerID "aws:///eu-west-1a/i-123", which is not a mockcloud:// ID',
    );
    await expect(i.instanceExists(node('x', 'mockcloud://'))).rejects.toThrow('malformed mockcloud providerID');
    await expect(i.instanceExists(node('twin'))).rejects.toThrow(/node twin: 2 servers have this name/);
    await expect(i.instanceExists({ metadata: {} })).rejects.toThrow('neither a providerID nor a name');
  });
});

describe('InstancesV2: errors are never "does not exist"', () => {
  it('throws on an auth error instead of reporting the instance gone', async () => {
    const s = api.state.addServer({ name: 'node-a' });
    const p = new MockCloudProvider({ ...testConfig(api), token: 'revoked' }, { logger: new RecordingLogger() });
    const i = p.instancesV2();
    for (const n of [node('node-a', `mockcloud://${s.id}`), node('node-a')]) {
      const err = await i.instanceExists(n).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MockCloudApiError);
      expect((err as MockCloudApiError).status).toBe(401);
      await expect(i.instanceShutdown(n)).rejects.toThrow(/HTTP 401 unauthorized/);
      await expect(i.instanceMetadata(n)).rejects.toThrow(/HTTP 401/);
    }
  });

  it('throws on an auth error on the confirming GET after a cache miss', async () => {
    const i = provider({ instancesCacheMaxAgeMs: 60_000 }).instancesV2();
    await i.instanceExists(node('warm-up'));
    api.injectFault({ status: 403, pathPrefix: '/v1/servers/' });
    await expect(i.instanceExists(node('n', 'mockcloud://srv-000042'))).rejects.toThrow(/HTTP 403/);
  });

  it('throws on 5xx, exhausted 429s and timeouts', async () => {
    const n = node('node-a', 'mockcloud://srv-000001');
    api.injectFault({ status: 500 });
    await expect(provider().instancesV2().instanceExists(n)).rejects.toThrow(/HTTP 500/);
    api.clearFaults();
    api.injectFault({ status: 429, retryAfterSeconds: 3600 });
    await expect(provider().instancesV2().instanceExists(n)).rejects.toThrow(/HTTP 429/);
    api.clearFaults();
    api.faults.latencyMs = 300;
    const err = await provider({ requestTimeoutMs: 50 })
      .instancesV2()
      .instanceExists(n)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MockCloudTimeoutError);
  });
});

describe('InstancesV2: list-all snapshot cache', () => {
  it('serves lookups from one listing until it is older than the max age', async () => {
    const a = api.state.addServer({ name: 'a' });
    const b = api.state.addServer({ name: 'b' });
    const i = provider({ instancesCacheMaxAgeMs: 30_000 }).instancesV2();
    await i.instanceExists(node('a', `mockcloud://${a.id}`));
    await i.instanceMetadata(node('b', `mockcloud://${b.id}`));
    await i.instanceShutdown(node('a'));
    expect(lists()).toHaveLength(1);
    now = 29_999;
    await i.instanceExists(node('b'));
    expect(lists()).toHaveLength(1);
    now = 30_000;
    await i.instanceExists(node('b'));
    expect(lists()).toHaveLength(2);
    expect(api.requests()).toHaveLength(2);
  });

  it('shares one listing between concurrent lookups', async () => {
    for (let k = 0; k < 5; k++) api.state.addServer({ name: `n${k}` });
    const i = provider().instancesV2();
    const found = await Promise.all(Array.from({ length: 5 }, (_, k) => i.instanceExists(node(`n${k}`))));
    expect(found).toEqual([true, true, true, true, true]);
    expect(lists()).toHaveLength(1);
  });

  it('confirms a miss with a direct call, so a server newer than the snapshot is found', async () => {
    const i = provider({ instancesCacheMaxAgeMs: 60_000 }).instancesV2();
    await i.instanceExists(node('warm-up'));
    const s = api.state.addServer({ name: 'late' });
    expect(await i.instanceExists(node('late', `mockcloud://${s.id}`))).toBe(true);
    expect(await i.instanceExists(node('late'))).toBe(true);
    expect(api.requests().some((r) => r.path === `/v1/servers/${s.id}`)).toBe(true);
  });

  it('lists on every lookup with a max age of 0', async () => {
    const i = provider({ instancesCacheMaxAgeMs: 0 }).instancesV2();
    await i.instanceExists(node('x'));
    await i.instanceExists(node('x'));
    expect(lists().filter((r) => !r.path.includes('name='))).toHaveLength(2);
  });
});

describe('InstancesV2: batch read (listInstanceStates)', () => {
  it('lists every server, 50 per page, with the metadata and shutdown state the per-Node methods answer', async () => {
    const servers = Array.from({ length: 60 }, (_, i) =>
      api.state.addServer({ name: `node-${i}`, status: i === 55 ? 'off' : 'running' }),
    );
    const i = provider().instancesV2();
    const first = await i.listInstanceStates!(undefined);
    expect(first.instances).toHaveLength(50);
    expect(first.nextPageToken).toBe('2');
    const second = await i.listInstanceStates!(first.nextPageToken);
    expect(second.instances).toHaveLength(10);
    expect(second.nextPageToken).toBeUndefined();
    expect(lists()).toHaveLength(2);
    const listed = [...first.instances, ...second.instances];
    for (const s of [servers[0]!, servers[55]!]) {
      const n = node(s.name, `mockcloud://${s.id}`);
      const item = listed.find((x) => x.providerID === `mockcloud://${s.id}`)!;
      expect(item.metadata).toEqual(await i.instanceMetadata(n));
      expect(item.shutdown).toBe(await i.instanceShutdown(n));
    }
    expect(listed.filter((x) => x.shutdown).map((x) => x.providerID)).toEqual([`mockcloud://${servers[55]!.id}`]);
  });

  it('rejects a page the API cannot answer, and a token that is not a page number', async () => {
    for (let n = 0; n < 60; n++) api.state.addServer({ name: `node-${n}` });
    const i = provider().instancesV2();
    api.injectFault({ status: 503, pathPrefix: '/v1/servers' });
    await expect(i.listInstanceStates!('2')).rejects.toThrow(/HTTP 503/);
    api.clearFaults();
    await expect(i.listInstanceStates!('two')).rejects.toThrow(/page token "two" is not a page number/);
  });
});

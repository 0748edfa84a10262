/**
 * The Routes facet and the API's VPC route table (`/v1/routes`), against the in-process API server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import { MockCloudApiError } from '../src/client/index.js';
import { LABEL_CLUSTER_ID, MockCloudProvider, routeName } from '../src/index.js';
import { RecordingLogger } from '@ccm-kit/testing';
import { FakeServiceClient, fastClient, startApi, testConfig } from './helpers.js';

let api: MockCloudApiServer;

beforeEach(async () => {
  api = await startApi();
});
afterEach(async () => {
  await api.close();
});

function routes(now?: () => number) {
  return new MockCloudProvider(testConfig(api), {
    serviceClient: new FakeServiceClient(),
    logger: new RecordingLogger(),
    ...(now ? { now } : {}),
  }).routes();
}

describe('API: /v1/routes', () => {
  it('creates, lists (by label), and deletes routes; the CIDR is stored in network form', async () => {
    const s = api.state.addServer({ name: 'a' });
    const client = fastClient(api);
    const created = await client.createRoute({
      name: 'r1',
      labels: { team: 'x' },
      destinationCIDR: '10.244.1.7/24',
      targetServerID: s.id,
    });
    expect(created).toEqual({
      id: 'rt-000001',
      name: 'r1',
      labels: { team: 'x' },
      destinationCIDR: '10.244.1.0/24',
      targetServerID: s.id,
    });
    expect(await client.listRoutes({ labelSelector: 'team=x' })).toEqual([created]);
    expect(await client.listRoutes({ labelSelector: 'team=y' })).toEqual([]);
    expect(await client.deleteRoute(created.id)).toBe(true);
    expect(await client.deleteRoute(created.id)).toBe(false);
    expect(api.state.listRoutes()).toEqual([]);
  });

  it('rejects a bad body naming each field, and a second route to the same destination', async () => {
    const s = api.state.addServer({ name: 'a' });
    const client = fastClient(api);
    const bad = (await client
      .createRoute({ name: 'Bad Name', labels: {}, destinationCIDR: '10.0.0.0/33', targetServerID: 'srv-x' })
      .catch((e: unknown) => e)) as MockCloudApiError;
    expect(bad.status).toBe(400);
    expect(bad.message).toContain('name must be 1-63 lowercase alphanumerics');
    expect(bad.message).toContain('destination_cidr must be a CIDR');
    expect(bad.message).toContain('target_server_id: server srv-x does not exist');
    await client.createRoute({ name: 'r1', labels: {}, destinationCIDR: '10.244.1.0/24', targetServerID: s.id });
    const dup = (await client
      .createRoute({ name: 'r2', labels: {}, destinationCIDR: '10.244.1.0/24', targetServerID: s.id })
      .catch((e: unknown) => e)) as MockCloudApiError;
    expect(dup.status).toBe(409);
    expect(dup.message).toContain('destination 10.244.1.0/24 is already routed by rt-000001');
  });
});

describe('Routes facet', () => {
  it('creates a route to the server named like the Node, lists it back, and deletes it', async () => {
    const s = api.state.addServer({ name: 'node-a' });
    const r = routes();
    await r.createRoute('kubernetes', 'UID-1234', { targetNode: 'node-a', destinationCIDR: '10.244.3.0/24' });
    expect(api.state.listRoutes()).toEqual([
      expect.objectContaining({
        name: 'k8s-uid-1234',
        labels: { [LABEL_CLUSTER_ID]: 'test-cluster' },
        destination_cidr: '10.244.3.0/24',
        target_server_id: s.id,
      }),
    ]);
    const listed = await r.listRoutes('kubernetes');
    expect(listed).toEqual([{ name: 'rt-000001', targetNode: 'node-a', destinationCIDR: '10.244.3.0/24' }]);
    await r.deleteRoute('kubernetes', listed[0]!);
    expect(api.state.listRoutes()).toEqual([]);
    await r.deleteRoute('kubernetes', listed[0]!); // already gone: success
  });

  it("lists only this cluster's routes, and reports a route whose server is gone as a blackhole (once the server snapshot says so)", async () => {
    let now = 0;
    const a = api.state.addServer({ name: 'node-a' });
    const b = api.state.addServer({ name: 'node-b' });
    api.state.createRoute({
      name: 'theirs',
      labels: { [LABEL_CLUSTER_ID]: 'another-cluster' },
      destination_cidr: '10.9.0.0/24',
      target_server_id: a.id,
    });
    const r = routes(() => now);
    await r.createRoute('kubernetes', 'u1', { targetNode: 'node-a', destinationCIDR: '10.244.1.0/24' });
    await r.createRoute('kubernetes', 'u2', { targetNode: 'node-b', destinationCIDR: '10.244.2.0/24' });
    api.state.removeServer(b.id);
    // A snapshot younger than its max age still shows the server: never a blackhole on stale data.
    expect((await r.listRoutes('kubernetes')).some((x) => x.blackhole)).toBe(false);
    now += 30_000;
    expect(await r.listRoutes('kubernetes')).toEqual([
      { name: 'rt-000002', targetNode: 'node-a', destinationCIDR: '10.244.1.0/24' },
      { name: 'rt-000003', targetNode: '', destinationCIDR: '10.244.2.0/24', blackhole: true },
    ]);
  });

  it('does not call a route to a server created after the snapshot a blackhole', async () => {
    const r = routes();
    api.state.addServer({ name: 'early' });
    await r.listRoutes('kubernetes'); // snapshot without "late"
    const late = api.state.addServer({ name: 'late' });
    api.state.createRoute({
      name: 'x',
      labels: { [LABEL_CLUSTER_ID]: 'test-cluster' },
      destination_cidr: '10.244.5.0/24',
      target_server_id: late.id,
    });
    expect(await r.listRoutes('kubernetes')).toEqual([
      { name: 'rt-000001', targetNode: 'late', destinationCIDR: '10.244.5.0/24' },
    ]);
  });

  it('accepts its own route on a retried create (409), and reports a real conflict', async () => {
    const s = api.state.addServer({ name: 'node-a' });
    api.state.addServer({ name: 'node-b' });
    api.state.createRoute({
      name: routeName('u1', ''),
      labels: { [LABEL_CLUSTER_ID]: 'test-cluster' },
      destination_cidr: '10.244.1.0/24',
      target_server_id: s.id,
    });
    const r = routes();
    await r.createRoute('kubernetes', 'u1', { targetNode: 'node-a', destinationCIDR: '10.244.1.0/24' });
    await expect(
      r.createRoute('kubernetes', 'u2', { targetNode: 'node-b', destinationCIDR: '10.244.1.0/24' }),
    ).rejects.toThrow(/HTTP 409 uniqueness_error: destination 10.244.1.0\/24 is already routed/);
    expect(api.state.listRoutes()).toHaveLength(1);
  });

  it('names the Node when no server, or several, carry its name', async () => {
    api.state.addServer({ name: 'twin' });
    api.state.addServer({ name: 'twin' });
    const r = routes();
    await expect(
      r.createRoute('kubernetes', 'u', { targetNode: 'ghost', destinationCIDR: '10.244.1.0/24' }),
    ).rejects.toThrow('mockcloud: cannot route 10.244.1.0/24 to node ghost: no server has its name');
    await expect(
      r.createRoute('kubernetes', 'u', { targetNode: 'twin', destinationCIDR: '10.244.1.0/24' }),
    ).rejects.toThrow('2 servers have its name');
    expect(api.requests().filter((q) => q.method === 'POST')).toEqual([]);
  });

  it('treats a route name that is not a mockcloud ID as gone, without a request', async () => {
    await routes().deleteRoute('kubernetes', { name: '.', targetNode: 'a', destinationCIDR: '10.0.0.0/24' });
    expect(api.requests()).toEqual([]);
  });

  it('keeps route names valid and short', () => {
    expect(routeName('8c4a2f0e-1b2c-4d5e-9f00-0123456789ab', '')).toBe('k8s-8c4a2f0e-1b2c-4d5e-9f00-0123456789ab');
    expect(routeName('', '10.244.1.0/24')).toBe('k8s-10-244-1-0-24');
    expect(routeName('x'.repeat(100), '')).toHaveLength(63);
  });
});

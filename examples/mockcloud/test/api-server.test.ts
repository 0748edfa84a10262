import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import type { WireLoadBalancer, WireServerList } from '../src/wire.js';
import { startApi, TOKEN } from './helpers.js';

let api: MockCloudApiServer;
let now = 1_000_000;

async function call(
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read JSON bodies of many shapes
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(api.origin + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

beforeEach(async () => {
  now = 1_000_000;
  api = await startApi({ tokens: [TOKEN, { token: 'reader', readOnly: true }], now: () => now });
});
afterEach(async () => {
  await api.close();
});

describe('mock API server: binding and auth', () => {
  it('listens on 127.0.0.1 and an ephemeral port by default', () => {
    expect(api.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(api.url).toBe(`${api.origin}/v1`);
  });

  it('answers 401 with a WWW-Authenticate header without a token or with a wrong one', async () => {
    for (const token of [null, 'wrong']) {
      const r = await call('GET', '/v1/servers', { token });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
      expect(r.headers.get('www-authenticate')).toContain('Bearer');
    }
  });

  it('lets a read-only token read but answers 403 to writes', async () => {
    api.state.addServer({ name: 'a' });
    expect((await call('GET', '/v1/servers', { token: 'reader' })).status).toBe(200);
    const r = await call('POST', '/v1/load_balancers', { token: 'reader', body: { name: 'x' } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('forbidden');
    expect(api.state.listLoadBalancers()).toHaveLength(0);
  });

  it('refuses to start without tokens', async () => {
    await expect(startApi({ tokens: [] })).rejects.toThrow(/tokens must be a non-empty list/);
  });

  it('guards /admin with the admin token when one is set', async () => {
    const guarded = await startApi({ adminToken: 'root' });
    try {
      expect((await fetch(`${guarded.origin}/admin/state`)).status).toBe(401);
      const ok = await fetch(`${guarded.origin}/admin/state`, { headers: { authorization: 'Bearer root' } });
      expect(ok.status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});

describe('mock API server: servers, filters and pagination', () => {
  it('pages through servers with meta.pagination and a Link header', async () => {
    for (let i = 0; i < 7; i++) api.state.addServer({ name: `s${i}` });
    const first = await call('GET', '/v1/servers?per_page=3');
    expect(first.status).toBe(200);
    const body = first.body as WireServerList;
    expect(body.servers.map((s) => s.name)).toEqual(['s0', 's1', 's2']);
    expect(body.meta.pagination).toEqual({
      page: 1,
      per_page: 3,
      previous_page: null,
      next_page: 2,
      last_page: 3,
      total_entries: 7,
    });
    expect(first.headers.get('link')).toBe(
      '</v1/servers?per_page=3&page=2>; rel="next", </v1/servers?per_page=3&page=3>; rel="last"',
    );
    const last = await call('GET', '/v1/servers?per_page=3&page=3');
    expect(last.body.servers.map((s: { name: string }) => s.name)).toEqual(['s6']);
    expect(last.body.meta.pagination.next_page).toBeNull();
    expect(last.headers.get('link')).not.toContain('rel="next"');
  });

  it('defaults to 25 per page, caps per_page at 50 and rejects bad paging values', async () => {
    for (let i = 0; i < 30; i++) api.state.addServer({ name: `s${i}` });
    expect((await call('GET', '/v1/servers')).body.servers).toHaveLength(25);
    const bad = await call('GET', '/v1/servers?per_page=51&page=0');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('per_page must be an integer in 1-50');
    expect(bad.body.error.message).toContain('page must be an integer');
  });

  it('filters by name and by label selector', async () => {
    api.state.addServer({ name: 'a', labels: { pool: 'edge', tier: 'web' } });
    api.state.addServer({ name: 'b', labels: { pool: 'core' } });
    api.state.addServer({ name: 'c', labels: {} });
    const names = async (q: string) =>
      ((await call('GET', `/v1/servers?${q}`)).body as WireServerList).servers.map((s) => s.name);
    expect(await names('name=b')).toEqual(['b']);
    expect(await names(`label_selector=${encodeURIComponent('pool=edge')}`)).toEqual(['a']);
    expect(await names(`label_selector=${encodeURIComponent('pool!=edge')}`)).toEqual(['b', 'c']);
    expect(await names(`label_selector=${encodeURIComponent('pool in (edge,core),!tier')}`)).toEqual(['b']);
    expect(await names(`label_selector=${encodeURIComponent('pool')}`)).toEqual(['a', 'b']);
    const bad = await call('GET', `/v1/servers?label_selector=${encodeURIComponent('pool in (a')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('label_selector');
  });

  it('gets, patches labels of, and 404s servers', async () => {
    const s = api.state.addServer({ name: 'a', zone: 'z9', private_ip: '10.9.9.9', public_ip: null });
    const got = await call('GET', `/v1/servers/${s.id}`);
    expect(got.body.server).toMatchObject({
      id: s.id,
      name: 'a',
      zone: 'z9',
      private_ip: '10.9.9.9',
      public_ip: null,
    });
    const patched = await call('PATCH', `/v1/servers/${s.id}`, { body: { labels: { k: 'v' } } });
    expect(patched.body.server.labels).toEqual({ k: 'v' });
    const bad = await call('PATCH', `/v1/servers/${s.id}`, { body: { labels: { 'bad key!': 1 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/invalid label key.*labels\.bad key! must be a string/s);
    const missing = await call('GET', '/v1/servers/srv-nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('answers 404 for unknown paths and 405 for a wrong method', async () => {
    expect((await call('GET', '/v1/nothing')).status).toBe(404);
    expect((await call('DELETE', '/v1/servers')).status).toBe(405);
  });
});

describe('mock API server: load balancers', () => {
  const lbBody = (targets: string[] = []) => ({
    name: 'lb-a',
    labels: { owner: 'me' },
    listeners: [{ protocol: 'tcp', port: 80, target_port: 30080 }],
    targets: targets.map((server_id) => ({ server_id })),
    health_check: { protocol: 'http', port: 10256, path: '/healthz', interval_seconds: 5 },
  });

  it('creates in provisioning without an IP, then becomes active with a public IP after the delay', async () => {
    api.state.provisioningDelayMs = 3_000;
    const s = api.state.addServer({ name: 'a' });
    const created = await call('POST', '/v1/load_balancers', { body: lbBody([s.id]) });
    expect(created.status).toBe(201);
    const lb = created.body.load_balancer as WireLoadBalancer;
    expect(lb).toMatchObject({ status: 'provisioning', public_ip: null, targets: [{ server_id: s.id }] });
    expect(lb.listeners[0]).toEqual({ protocol: 'tcp', port: 80, target_port: 30080, proxy_protocol: false });
    now += 2_999;
    expect((await call('GET', `/v1/load_balancers/${lb.id}`)).body.load_balancer.status).toBe('provisioning');
    now += 1;
    const active = (await call('GET', `/v1/load_balancers/${lb.id}`)).body.load_balancer as WireLoadBalancer;
    expect(active.status).toBe('active');
    expect(active.public_ip).toMatch(/^203\.0\.\d+\.\d+$/);
  });

  it('can hold and activate a load balancer through the admin API', async () => {
    const lb = (await call('POST', '/v1/load_balancers', { body: lbBody() })).body.load_balancer as WireLoadBalancer;
    await fetch(`${api.origin}/admin/load_balancers/${lb.id}/hold`, { method: 'POST' });
    now += 10_000_000;
    expect(api.state.getLoadBalancer(lb.id)!.status).toBe('provisioning');
    const r = await fetch(`${api.origin}/admin/load_balancers/${lb.id}/activate`, { method: 'POST' });
    expect(((await r.json()) as { load_balancer: WireLoadBalancer }).load_balancer.status).toBe('active');
  });

  it('rejects invalid bodies listing every problem, unknown targets included', async () => {
    const r = await call('POST', '/v1/load_balancers', {
      body: {
        name: 'Bad_Name',
        listeners: [
          { protocol: 'sctp', port: 0, target_port: 1 },
          { protocol: 'tcp', port: 80, target_port: 1 },
          { protocol: 'tcp', port: 80, target_port: 2 },
        ],
        targets: [{ server_id: 'srv-missing' }],
      },
    });
    expect(r.status).toBe(400);
    const msg: string = r.body.error.message;
    for (const part of [
      'name must be',
      'listeners[0].protocol',
      'listeners[0].port',
      'listeners[2] duplicates tcp/80',
      'targets[0].server_id srv-missing does not exist',
    ]) {
      expect(msg).toContain(part);
    }
  });

  it('answers 409 for a duplicate name, updates fields present in PATCH, and deletes with 204 then 404', async () => {
    const lb = (await call('POST', '/v1/load_balancers', { body: lbBody() })).body.load_balancer as WireLoadBalancer;
    const dup = await call('POST', '/v1/load_balancers', { body: lbBody() });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('uniqueness_error');
    const s = api.state.addServer({ name: 'a' });
    const patched = await call('PATCH', `/v1/load_balancers/${lb.id}`, {
      body: { targets: [{ server_id: s.id }] },
    });
    expect(patched.body.load_balancer).toMatchObject({
      name: 'lb-a',
      labels: { owner: 'me' },
      targets: [{ server_id: s.id }],
    });
    expect((await call('DELETE', `/v1/load_balancers/${lb.id}`)).status).toBe(204);
    expect((await call('DELETE', `/v1/load_balancers/${lb.id}`)).status).toBe(404);
  });

  it('drops a deleted server from load-balancer targets', async () => {
    const s = api.state.addServer({ name: 'a' });
    const lb = api.state.createLoadBalancer({ name: 'x', targets: [{ server_id: s.id }] });
    api.state.removeServer(s.id);
    expect(api.state.getLoadBalancer(lb.id)!.targets).toEqual([]);
  });

  it('filters load balancers by label selector', async () => {
    api.state.createLoadBalancer({ name: 'one', labels: { svc: 'a' } });
    api.state.createLoadBalancer({ name: 'two', labels: { svc: 'b' } });
    const r = await call('GET', `/v1/load_balancers?label_selector=${encodeURIComponent('svc=b')}`);
    expect(r.body.load_balancers.map((l: WireLoadBalancer) => l.name)).toEqual(['two']);
  });
});

describe('mock API server: failure injection', () => {
  it('answers 429 with Retry-After for the scripted count, then normally', async () => {
    api.injectFault({ status: 429, retryAfterSeconds: 7, count: 2, pathPrefix: '/v1/servers' });
    for (let i = 0; i < 2; i++) {
      const r = await call('GET', '/v1/servers');
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('7');
      expect(r.body.error.code).toBe('rate_limit_exceeded');
    }
    expect((await call('GET', '/v1/servers')).status).toBe(200);
  });

  it('matches rules by method and path prefix', async () => {
    api.injectFault({ status: 503, method: 'POST', pathPrefix: '/v1/load_balancers' });
    expect((await call('GET', '/v1/load_balancers')).status).toBe(200);
    const r = await call('POST', '/v1/load_balancers', { body: { name: 'x' } });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('server_error');
    expect(api.state.listLoadBalancers()).toHaveLength(0);
  });

  it('resets the connection, which fetch reports as a network error', async () => {
    api.injectFault({ reset: true, count: 1 });
    await expect(call('GET', '/v1/servers')).rejects.toThrow(/fetch failed/);
    expect(api.requests().at(-1)!.status).toBe(0);
  });

  it('adds latency', async () => {
    api.injectFault({ latencyMs: 150, count: 1 });
    const t0 = performance.now();
    await call('GET', '/v1/servers');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('enforces a fixed-window rate limit with Retry-After', async () => {
    api.faults.setRateLimit({ limit: 2, windowMs: 10_000 });
    expect((await call('GET', '/v1/servers')).status).toBe(200);
    expect((await call('GET', '/v1/servers')).status).toBe(200);
    const limited = await call('GET', '/v1/servers');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('10');
    now += 10_000;
    expect((await call('GET', '/v1/servers')).status).toBe(200);
  });

  it('is controllable through the admin endpoint, and admin calls are never faulted', async () => {
    const add = await fetch(`${api.origin}/admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 500, count: 1 }),
    });
    expect(add.status).toBe(201);
    expect(((await add.json()) as { faults: unknown[] }).faults).toEqual([{ status: 500, count: 1, remaining: 1 }]);
    expect((await fetch(`${api.origin}/admin/state`)).status).toBe(200);
    expect((await call('GET', '/v1/servers')).status).toBe(500);
    const bad = await fetch(`${api.origin}/admin/faults`, {
      method: 'POST',
      body: JSON.stringify({ status: 99 }),
    });
    expect(bad.status).toBe(400);
    await fetch(`${api.origin}/admin/settings`, {
      method: 'PUT',
      body: JSON.stringify({ rate_limit: { limit: 0, window_ms: 60_000 } }),
    });
    expect((await call('GET', '/v1/servers')).status).toBe(429);
    await fetch(`${api.origin}/admin/faults`, { method: 'DELETE' });
    expect((await call('GET', '/v1/servers')).status).toBe(200);
  });
});

describe('mock API server: scripted state and request log', () => {
  it('seeds, changes and deletes servers through the admin API', async () => {
    const add = await fetch(`${api.origin}/admin/servers`, {
      method: 'POST',
      body: JSON.stringify({ name: 'n1', zone: 'z2', labels: { a: 'b' } }),
    });
    expect(add.status).toBe(201);
    const { server } = (await add.json()) as { server: { id: string } };
    await fetch(`${api.origin}/admin/servers/${server.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ status: 'off' }),
    });
    expect(api.state.getServer(server.id)!.status).toBe('off');
    const bad = await fetch(`${api.origin}/admin/servers`, {
      method: 'POST',
      body: JSON.stringify({ status: 'x' }),
    });
    expect(bad.status).toBe(400);
    expect((await fetch(`${api.origin}/admin/servers/${server.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(api.state.listServers()).toEqual([]);
  });

  it('starts with seeded servers and logs API requests (not admin ones) with the User-Agent', async () => {
    const seeded = await startApi({ servers: [{ name: 'x', id: 'srv-fixed' }] });
    try {
      expect(seeded.state.getServer('srv-fixed')!.name).toBe('x');
      await fetch(`${seeded.url}/servers/srv-fixed`, {
        headers: { authorization: `Bearer ${TOKEN}`, 'user-agent': 'probe/1' },
      });
      await fetch(`${seeded.origin}/admin/state`);
      expect(seeded.requests()).toEqual([
        expect.objectContaining({
          method: 'GET',
          path: '/v1/servers/srv-fixed',
          status: 200,
          userAgent: 'probe/1',
        }),
      ]);
      const [logged] = seeded.requests();
      expect(logged!.endTime).toBeGreaterThanOrEqual(logged!.time); // when it was answered
    } finally {
      await seeded.close();
    }
  });

  it('bounds the request log', async () => {
    const small = await startApi({ requestLogSize: 3 });
    try {
      for (let i = 0; i < 5; i++) await fetch(`${small.url}/servers?page=${i + 1}`);
      expect(small.requests().map((r) => r.path)).toEqual([
        '/v1/servers?page=3',
        '/v1/servers?page=4',
        '/v1/servers?page=5',
      ]);
    } finally {
      await small.close();
    }
  });
});

describe('mock API server: failure rate and caller identity', () => {
  it('answers 503 to the share of requests its seeded random source picks, and logs the token name as caller', async () => {
    const draws = [0.05, 0.5, 0.19, 0.2];
    const seeded = await startApi({
      tokens: [{ token: 'ccm-0-token', name: 'ccm-0' }, TOKEN],
      failureRate: 0.2,
      random: () => draws.shift() ?? 1,
    });
    try {
      const status = async (token: string) =>
        (await fetch(`${seeded.url}/servers`, { headers: { authorization: `Bearer ${token}` } })).status;
      expect([
        await status('ccm-0-token'),
        await status('ccm-0-token'),
        await status(TOKEN),
        await status(TOKEN),
      ]).toEqual([503, 200, 503, 200]);
      expect(seeded.requests().map((r) => r.caller)).toEqual(['ccm-0', 'ccm-0', undefined, undefined]);
      expect(JSON.stringify(seeded.requests())).not.toContain('ccm-0-token');
      const put = await fetch(`${seeded.origin}/admin/settings`, {
        method: 'PUT',
        body: JSON.stringify({ failure_rate: 2 }),
      });
      expect(put.status).toBe(400);
      await fetch(`${seeded.origin}/admin/settings`, { method: 'PUT', body: JSON.stringify({ failure_rate: 0 }) });
      expect(await status(TOKEN)).toBe(200);
    } finally {
      await seeded.close();
    }
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metricsRegistry } from '@ccm-kit/runtime';
import { fileCredential } from '@ccm-kit/runtime/guard';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Response, fetch as undiciFetch } from 'undici';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import {
  isAuthError,
  isNotFound,
  MockCloudApiError,
  MockCloudClient,
  MockCloudNetworkError,
  MalformedIDError,
  MockCloudTimeoutError,
} from '../src/client/index.js';
import { fastClient, startApi, TOKEN } from './helpers.js';

let api: MockCloudApiServer;

beforeEach(async () => {
  api = await startApi();
});
afterEach(async () => {
  await api.close();
});

async function metricValue(name: string, labels: Record<string, string>): Promise<number> {
  const metric = metricsRegistry.getSingleMetric(name);
  if (!metric) return 0;
  const data = await metric.get();
  return data.values
    .filter((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))
    .reduce((sum, v) => sum + v.value, 0);
}

describe('client: reads and writes', () => {
  it('follows pagination to list every server', async () => {
    for (let i = 0; i < 120; i++) api.state.addServer({ name: `s${i}`, labels: { n: String(i % 2) } });
    const client = fastClient(api);
    const all = await client.listServers();
    expect(all).toHaveLength(120);
    expect(new Set(all.map((s) => s.id)).size).toBe(120);
    expect(api.requests().map((r) => r.path)).toEqual([
      '/v1/servers?page=1&per_page=50',
      '/v1/servers?page=2&per_page=50',
      '/v1/servers?page=3&per_page=50',
    ]);
    expect(await client.listServers({ labelSelector: 'n=1' })).toHaveLength(60);
  });

  it('maps the wire format and returns undefined or false on 404 only', async () => {
    const s = api.state.addServer({ name: 'a', public_ip: null, zone: 'z1', type: 't1' });
    const client = fastClient(api);
    expect(await client.getServer(s.id)).toEqual({
      id: s.id,
      name: 'a',
      labels: {},
      status: 'running',
      privateIP: s.private_ip,
      zone: 'z1',
      region: 'region-1',
      type: 't1',
    });
    expect(await client.getServer('srv-missing')).toBeUndefined();
    expect(await client.getLoadBalancer('lb-missing')).toBeUndefined();
    expect(await client.deleteLoadBalancer('lb-missing')).toBe(false);
    const lb = await client.createLoadBalancer({
      name: 'x',
      labels: { a: 'b' },
      listeners: [{ protocol: 'tcp', port: 443, targetPort: 30443, proxyProtocol: true }],
      targetServerIDs: [s.id],
      healthCheck: { protocol: 'tcp', port: 30443, intervalSeconds: 3 },
    });
    expect(lb).toMatchObject({
      name: 'x',
      status: 'active',
      targetServerIDs: [s.id],
      listeners: [{ protocol: 'tcp', port: 443, targetPort: 30443, proxyProtocol: true }],
      healthCheck: { protocol: 'tcp', port: 30443, intervalSeconds: 3 },
    });
    expect(lb.publicIP).toBeDefined();
    expect((await client.updateLoadBalancer(lb.id, { healthCheck: null })).healthCheck).toBeUndefined();
    expect(await client.deleteLoadBalancer(lb.id)).toBe(true);
    expect((await client.setServerLabels(s.id, { k: 'v' })).labels).toEqual({ k: 'v' });
  });

  it('sends the bearer token and a versioned User-Agent', async () => {
    await fastClient(api).listServers();
    expect(api.requests()[0]!.userAgent).toMatch(/^mockcloud-cloud-controller-manager\/0\.1\.0 \(ccm-kit\)$/);
    await fastClient(api, { userAgent: 'vendor/9' }).listServers();
    expect(api.requests()[1]!.userAgent).toBe('vendor/9');
  });

  it('rejects bad options', () => {
    expect(() => new MockCloudClient({ apiURL: 'nope', token: 't' })).toThrow(/not a URL/);
    expect(() => new MockCloudClient({ apiURL: 'ftp://x', token: 't' })).toThrow(/http or https/);
    expect(() => new MockCloudClient({ apiURL: 'http://x', token: ' ' })).toThrow(/token is empty/);
    expect(() => new MockCloudClient({ apiURL: 'http://x', token: 't', concurrency: 0 })).toThrow(/concurrency/);
  });
});

describe('client: errors and retries', () => {
  it('does not retry 4xx answers and keeps 401/403 distinct from 404', async () => {
    const client = new MockCloudClient({
      apiURL: api.url,
      token: 'wrong',
      retry: { retries: 3, minDelayMs: 1 },
    });
    const err = await client.getServer('srv-1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MockCloudApiError);
    expect((err as MockCloudApiError).status).toBe(401);
    expect(isAuthError(err)).toBe(true);
    expect(isNotFound(err)).toBe(false);
    expect(api.requests()).toHaveLength(1);
    const bad = await fastClient(api)
      .listServers({ labelSelector: 'a in (' })
      .catch((e: unknown) => e);
    expect((bad as MockCloudApiError).status).toBe(400);
    expect(api.requests()).toHaveLength(2);
  });

  it('retries 5xx and then succeeds', async () => {
    api.injectFault({ status: 503, count: 2 });
    const failed = { request: 'list_servers', result: 'server' };
    const before = await metricValue('cloudprovider_mockcloud_api_request_attempts_total', failed);
    expect(await fastClient(api).listServers()).toEqual([]);
    expect(api.requests().map((r) => r.status)).toEqual([503, 503, 200]);
    expect(await metricValue('cloudprovider_mockcloud_api_request_attempts_total', failed)).toBe(before + 2);
  });

  it('gives up after the retry budget with the last error', async () => {
    api.injectFault({ status: 500 });
    const err = await fastClient(api, { retry: { retries: 2 } })
      .getServer('x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MockCloudApiError);
    expect((err as MockCloudApiError).status).toBe(500);
    expect(api.requests()).toHaveLength(3);
  });

  it('retries network errors', async () => {
    api.injectFault({ reset: true, count: 2 });
    expect(await fastClient(api).listServers()).toEqual([]);
    expect(api.requests().map((r) => r.status)).toEqual([0, 0, 200]);
  });

  it('times out slow attempts, retries them, and reports timeouts in metrics', async () => {
    api.injectFault({ latencyMs: 400, count: 1 });
    const timedOut = { request: 'list_servers', result: 'timeout' };
    const before = await metricValue('cloudprovider_mockcloud_api_request_attempts_total', timedOut);
    expect(await fastClient(api, { requestTimeoutMs: 100 }).listServers()).toEqual([]);
    expect(api.requests()).toHaveLength(2);
    expect(await metricValue('cloudprovider_mockcloud_api_request_attempts_total', timedOut)).toBe(before + 1);
  });

  it('throws MockCloudTimeoutError when every attempt times out', async () => {
    api.faults.latencyMs = 300;
    const err = await fastClient(api, { requestTimeoutMs: 50, retry: { retries: 1 } })
      .listServers()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MockCloudTimeoutError);
    expect((err as Error).message).toBe('mockcloud list_servers: no answer within 50 ms');
  });

  it('stops at once when the caller aborts, without retrying', async () => {
    api.faults.latencyMs = 500;
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('stop')), 50);
    const t0 = performance.now();
    await expect(fastClient(api).listServers({ signal: ac.signal })).rejects.toThrow('stop');
    expect(performance.now() - t0).toBeLessThan(450); // the 500 ms answer was not awaited
    expect(api.requests()).toHaveLength(1);
  });

  it('reports network errors as MockCloudNetworkError when retries run out', async () => {
    const url = api.url;
    await api.close();
    const err = await new MockCloudClient({ apiURL: url, token: TOKEN, retry: { retries: 1, minDelayMs: 1 } })
      .listServers()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MockCloudNetworkError);
    expect((err as Error).message).toMatch(/network error: .*ECONNREFUSED/);
    api = await startApi();
  });
});

describe('client: Retry-After', () => {
  it('waits the Retry-After delay before retrying', async () => {
    api.injectFault({ status: 429, retryAfterSeconds: 1, count: 1 });
    const t0 = performance.now();
    await fastClient(api).listServers();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(990);
    const [first, second] = api.requests();
    expect(first!.status).toBe(429);
    expect(second!.time - first!.time).toBeGreaterThanOrEqual(990);
  });

  it('holds every request of the client during a 429 storm and still completes them all', async () => {
    api.faults.setRateLimit({ limit: 5, windowMs: 1_000 });
    const s = api.state.addServer({ name: 'a' });
    const client = fastClient(api, { concurrency: 8, retry: { retries: 6 } });
    const results = await Promise.all(Array.from({ length: 12 }, () => client.getServer(s.id)));
    expect(results.every((r) => r?.id === s.id)).toBe(true);
    const log = api.requests();
    expect(log.filter((r) => r.status === 200)).toHaveLength(12);
    expect(log.some((r) => r.status === 429)).toBe(true);
    // That nothing is sent between the first 429 and Retry-After is checked by the next test on the client's own
    // clock: server-side arrival times also carry the event loop's delays, which a loaded machine stretches
    // past any fixed allowance.
    // Without the shared wait each request would retry on its own backoff (5–20 ms) and storm the API.
    expect(log.filter((r) => r.status === 429).length).toBeLessThanOrEqual(16);
  });

  it('sends nothing, from the moment it has received a 429, until Retry-After has passed (client-side clock)', async () => {
    // The same storm measured where the decision is made: server-side arrival times also include event-loop
    // delays of requests sent before the first 429 came back.
    api.faults.setRateLimit({ limit: 5, windowMs: 1_000 });
    const s = api.state.addServer({ name: 'a' });
    const events: { at: number; what: string }[] = [];
    const recording: typeof undiciFetch = async (input, init) => {
      events.push({ at: performance.now(), what: 'send' });
      const res = await undiciFetch(input, init);
      events.push({ at: performance.now(), what: `answer ${res.status}` });
      return res;
    };
    const client = fastClient(api, { concurrency: 8, retry: { retries: 6 }, fetch: recording });
    await Promise.all(Array.from({ length: 12 }, () => client.getServer(s.id)));
    const first429 = events.find((e) => e.what === 'answer 429')!;
    expect(first429).toBeDefined();
    const early = events.filter((e) => e.what === 'send' && e.at > first429.at && e.at < first429.at + 990);
    expect(early).toEqual([]);
    expect(events.filter((e) => e.what === 'answer 200')).toHaveLength(12);
  });

  it('fails at once, and sends nothing more, when Retry-After exceeds maxRetryAfterMs', async () => {
    api.injectFault({ status: 429, retryAfterSeconds: 120, count: 1 });
    const client = fastClient(api, { retry: { maxRetryAfterMs: 60_000 } });
    const err = (await client.listServers().catch((e: unknown) => e)) as MockCloudApiError;
    expect(err).toBeInstanceOf(MockCloudApiError);
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBe(120_000);
    const next = (await client.getServer('x').catch((e: unknown) => e)) as MockCloudApiError;
    expect(next.message).toMatch(/not sent: the API asked to wait another \d+ ms/);
    expect(next.retryAfterMs).toBeGreaterThan(60_000);
    expect(api.requests()).toHaveLength(1);
  });
});

describe('client: concurrency and metrics', () => {
  it('limits requests in flight', async () => {
    api.faults.latencyMs = 100;
    const client = fastClient(api, { concurrency: 2 });
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 6 }, () => client.listServers()));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('counts attempts by operation and result, errors by class, and observes call duration', async () => {
    const s = api.state.addServer({ name: 'a' });
    const attempts = 'cloudprovider_mockcloud_api_request_attempts_total';
    const ok = { request: 'get_server', result: 'ok' };
    const missing = { request: 'get_server', result: 'not_found' };
    const errors = { request: 'get_server', class: 'not_found' };
    const before = [
      await metricValue(attempts, ok),
      await metricValue(attempts, missing),
      await metricValue('cloudprovider_mockcloud_api_request_errors', errors),
    ];
    const client = fastClient(api);
    await client.getServer(s.id);
    await client.getServer('nope');
    expect(await metricValue(attempts, ok)).toBe(before[0]! + 1);
    expect(await metricValue(attempts, missing)).toBe(before[1]! + 1);
    expect(await metricValue('cloudprovider_mockcloud_api_request_errors', errors)).toBe(before[2]! + 1);
    const text = await metricsRegistry.getSingleMetricAsString('cloudprovider_mockcloud_api_request_duration_seconds');
    expect(text).toMatch(/cloudprovider_mockcloud_api_request_duration_seconds_count\{request="get_server"\} \d+/);
  });
});

describe('client: IDs and answers', () => {
  it.each(['.', '..', '', 'a/b', '../servers', 'lb-1?x=1', '%2e'])(
    'rejects the malformed ID %j before sending anything',
    async (id) => {
      const client = fastClient(api);
      await expect(client.getLoadBalancer(id)).rejects.toBeInstanceOf(MalformedIDError);
      await expect(client.deleteLoadBalancer(id)).rejects.toBeInstanceOf(MalformedIDError);
      await expect(client.getServer(id)).rejects.toBeInstanceOf(MalformedIDError);
      expect(api.requests()).toHaveLength(0);
    },
  );

  it('reports an answer without the expected object as an error, not undefined.id', async () => {
    const client = fastClient(api, {
      fetch: async () => new Response(JSON.stringify({ load_balancers: [] }), { status: 200 }),
    });
    await expect(client.getLoadBalancer('lb-000001')).rejects.toThrow(
      'mockcloud get_load_balancer: HTTP 200 invalid_response: the answer has no "load_balancer" object',
    );
  });

  it('never echoes credentials of apiURL in its errors', () => {
    expect(() => new MockCloudClient({ apiURL: 'ftp://user:hunter2@x/', token: 't' })).toThrow(
      'mockcloud: apiURL "ftp://***@x/" must be http or https',
    );
    expect(() => new MockCloudClient({ apiURL: 'http://user:hunter2@x/', token: 't' })).toThrow(
      'mockcloud: apiURL "http://***@x/" must not contain credentials; give the token instead',
    );
    const err = new MockCloudNetworkError(
      'list_servers',
      new TypeError('Request cannot be constructed from a URL that includes credentials: http://u:hunter2@h/v1'),
    );
    expect(err.message).toBe(
      'mockcloud list_servers: network error: Request cannot be constructed from a URL that includes credentials: http://***@h/v1',
    );
  });
});

describe('client: tokens', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mockcloud-token-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('re-reads a rotated token file after a 401 and retries once', async () => {
    const file = join(dir, 'token');
    await writeFile(file, `${TOKEN}\n`);
    const client = fastClient(api, { token: fileCredential(file) });
    await client.listServers();
    await writeFile(file, 'rotated');
    api.addToken('rotated');
    api.revokeToken(TOKEN);
    await client.listServers();
    expect(api.requests().map((r) => r.status)).toEqual([200, 401, 200]);
  });
});

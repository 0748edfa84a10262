import { CoordinationV1Api, CoreV1Api, V1MicroTime } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { metricsRegistry } from '../src/index.js';
import {
  callOptions,
  createClientFactory,
  isConflict,
  isNotFound,
  patchOptions,
  statusCode,
} from '../src/client/index.js';
import { clientFactoryTransport, defaultUserAgent } from '../src/client/factory.js';
import { type RecordedRequest, sendJson, startTestServer, status, type TestServer } from './client-test-server.js';

const node = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, resourceVersion: '1' } });

async function metricValue(name: string, labels: Record<string, string>): Promise<number> {
  const m = await metricsRegistry.getSingleMetric(name)?.get();
  const v = m?.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
  return v?.value ?? 0;
}

describe('createClientFactory', () => {
  let srv: TestServer;
  beforeEach(async () => {
    srv = await startTestServer((req, res) => {
      if (req.url.pathname.startsWith('/api/v1/nodes/missing'))
        return sendJson(res, 404, status(404, 'NotFound', 'nodes "missing" not found'));
      if (req.method === 'PATCH' || req.method === 'GET')
        return sendJson(res, 200, node(req.url.pathname.split('/').pop() ?? 'x'));
      if (req.method === 'PUT') return sendJson(res, 409, status(409, 'Conflict', 'the object has been modified'));
      return sendJson(res, 201, JSON.parse(req.body || '{}'));
    });
  });
  const factories: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const f of factories.splice(0)) await f.close();
    await srv.close();
  });
  const make = (o: Partial<Parameters<typeof createClientFactory>[0]> = {}) => {
    const f = createClientFactory({ kubeConfig: srv.kubeConfig, ...o });
    factories.push(f);
    return f;
  };

  it('sends <base>/<name> as the user agent, the kubeconfig token, and reads typed bodies', async () => {
    const f = make({ userAgent: 'my-ccm/v1' });
    const core = f.client('node-controller', CoreV1Api);
    const n = await core.readNode({ name: 'a' });
    expect(n.metadata?.name).toBe('a');
    const req = srv.requests.at(-1) as RecordedRequest;
    expect(req.headers['user-agent']).toBe('my-ccm/v1/node-controller');
    expect(req.headers.authorization).toBe('Bearer secret-token');
    expect(req.headers.accept).toContain('application/json');
    expect(f.client('node-controller', CoreV1Api)).toBe(core);
    expect(f.client('service-controller', CoreV1Api)).not.toBe(core);
  });

  it('defaults the base user agent to ccm-kit/<version> (<os>/<arch>)', async () => {
    const f = make();
    await f.client('x', CoreV1Api).readNode({ name: 'a' });
    expect(defaultUserAgent).toMatch(/^ccm-kit\/\d+\.\d+\.\d+ \(\w+\/\w+\)$/);
    expect(srv.requests.at(-1)?.headers['user-agent']).toBe(`${defaultUserAgent}/x`);
  });

  it('sends each PATCH flavour with its content type and keeps the client user agent', async () => {
    const core = make({ userAgent: 'ua' }).client('pc', CoreV1Api);
    const cases = [
      ['strategic', 'application/strategic-merge-patch+json'],
      ['merge', 'application/merge-patch+json'],
      ['json', 'application/json-patch+json'],
      ['apply', 'application/apply-patch+yaml'],
    ] as const;
    for (const [kind, ct] of cases) {
      const body =
        kind === 'json'
          ? [{ op: 'add', path: '/metadata/labels/a', value: 'b' }]
          : { metadata: { labels: { a: 'b' } } };
      await core.patchNode(
        { name: 'n1', body, ...(kind === 'apply' ? { fieldManager: 'ccm', force: true } : {}) },
        patchOptions(kind),
      );
      const req = srv.requests.at(-1) as RecordedRequest;
      expect(req.method).toBe('PATCH');
      expect(req.headers['content-type']).toBe(ct);
      expect(req.headers['user-agent']).toBe('ua/pc');
      expect(JSON.parse(req.body)).toEqual(body);
      if (kind === 'apply') expect(req.url.searchParams.get('fieldManager')).toBe('ccm');
    }
  });

  it('rejects an unknown patch kind naming it', () => {
    expect(() => patchOptions('bogus' as never)).toThrow(/kind must be merge, strategic, json or apply/);
  });

  it('maps API errors: 404 is NotFound, 409 Conflict; statusCode reads the code', async () => {
    const core = make().client('e', CoreV1Api);
    const err404 = await core.readNode({ name: 'missing' }).catch((e: unknown) => e);
    expect(isNotFound(err404)).toBe(true);
    expect(statusCode(err404)).toBe(404);
    const err409 = await core.replaceNode({ name: 'a', body: node('a') }).catch((e: unknown) => e);
    expect(isConflict(err409)).toBe(true);
    expect(isNotFound(err409)).toBe(false);
  });

  it('writes Lease MicroTime fields with six fraction digits', async () => {
    const coord = make().client('le', CoordinationV1Api);
    await coord.createNamespacedLease({
      namespace: 'kube-system',
      body: {
        metadata: { name: 'l' },
        spec: { holderIdentity: 'me', renewTime: new V1MicroTime('2026-01-02T03:04:05.123Z') },
      },
    });
    const sent = JSON.parse(srv.requests.at(-1)?.body ?? '{}');
    expect(sent.spec.renewTime).toBe('2026-01-02T03:04:05.123000Z');
  });

  it('reuses keep-alive connections: 20 sequential and 30 parallel requests open a handful', async () => {
    const f = make({ qps: -1 });
    const core = f.client('reuse', CoreV1Api);
    for (let i = 0; i < 20; i++) await core.readNode({ name: `n${i}` });
    // undici returns a socket to the pool a tick after the body ends, so back-to-back requests may alternate two.
    expect(clientFactoryTransport(f).connectionsOpened).toBeLessThanOrEqual(2);
    expect(srv.connections).toBe(clientFactoryTransport(f).connectionsOpened);
    await Promise.all(Array.from({ length: 30 }, (_, i) => core.readNode({ name: `p${i}` })));
    expect(srv.connections).toBe(clientFactoryTransport(f).connectionsOpened);
    expect(new Set(srv.requests.map((r) => r.remotePort)).size).toBe(clientFactoryTransport(f).connectionsOpened);
    const afterParallel = clientFactoryTransport(f).connectionsOpened;
    expect(afterParallel).toBeLessThanOrEqual(32);
    for (let i = 0; i < 20; i++) await core.readNode({ name: `again${i}` });
    expect(clientFactoryTransport(f).connectionsOpened).toBe(afterParallel); // pooled sockets are reused, none opened
    expect(srv.requests.length).toBe(70);
  });

  it('shares one connection pool across clients of different names and API classes', async () => {
    const f = make();
    await f.client('a', CoreV1Api).readNode({ name: 'x' });
    await f.client('b', CoreV1Api).readNode({ name: 'y' });
    await f.request('c', '/api/v1/nodes/z').then((r) => r.text());
    await f.client('d', CoordinationV1Api).readNamespacedLease({ name: 'l', namespace: 'n' });
    expect(clientFactoryTransport(f).connectionsOpened).toBeLessThanOrEqual(2);
    expect(srv.connections).toBe(clientFactoryTransport(f).connectionsOpened);
  });

  it('counts rest_client_requests_total{code,host,method} and observes the duration histogram', async () => {
    const f = make();
    const host = new URL(srv.url).host;
    const before200 = await metricValue('rest_client_requests_total', { code: '200', host, method: 'GET' });
    const before404 = await metricValue('rest_client_requests_total', { code: '404', host, method: 'GET' });
    const core = f.client('m', CoreV1Api);
    await core.readNode({ name: 'a' });
    await core.readNode({ name: 'missing' }).catch(() => undefined);
    expect(await metricValue('rest_client_requests_total', { code: '200', host, method: 'GET' })).toBe(before200 + 1);
    expect(await metricValue('rest_client_requests_total', { code: '404', host, method: 'GET' })).toBe(before404 + 1);
    const text = await metricsRegistry.metrics();
    expect(text).toMatch(
      new RegExp(`rest_client_request_duration_seconds_count\\{verb="GET",host="${host.replace('.', '\\.')}"\\} \\d+`),
    );
  });

  it('counts transport failures with code <error>', async () => {
    const f = make({ timeoutMs: 1000 });
    const host = new URL(srv.url).host;
    const before = await metricValue('rest_client_requests_total', { code: '<error>', host, method: 'GET' });
    await srv.close();
    await expect(f.client('x', CoreV1Api).readNode({ name: 'a' })).rejects.toThrow(/127\.0\.0\.1/);
    expect(await metricValue('rest_client_requests_total', { code: '<error>', host, method: 'GET' })).toBe(before + 1);
    srv = await startTestServer();
  });

  it('aborts a request that exceeds timeoutMs', async () => {
    srv.setHandler(() => undefined); // never answers
    const f = make({ timeoutMs: 200 });
    const t0 = performance.now();
    const err = await f
      .client('slow', CoreV1Api)
      .readNode({ name: 'a' })
      .catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('cancels a request through callOptions({ signal })', async () => {
    srv.setHandler(() => undefined);
    const f = make({ timeoutMs: 0 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('stop now')), 100);
    await expect(f.client('c', CoreV1Api).readNode({ name: 'a' }, callOptions({ signal: ac.signal }))).rejects.toThrow(
      'stop now',
    );
  });

  it('limits requests to qps after the burst, shared across clients', async () => {
    const f = make({ qps: 10, burst: 2 });
    const t0 = performance.now();
    await Promise.all([
      f.client('a', CoreV1Api).readNode({ name: '1' }),
      f.client('b', CoreV1Api).readNode({ name: '2' }),
      f.client('a', CoreV1Api).readNode({ name: '3' }),
      f.client('b', CoreV1Api).readNode({ name: '4' }),
      f.client('a', CoreV1Api).readNode({ name: '5' }),
    ]);
    // 2 immediately, then 3 more at 100 ms intervals: about 300 ms.
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(2000);
  });

  it('does not limit when qps is negative', async () => {
    const f = make({ qps: -1 });
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 40 }, (_, i) => f.client('a', CoreV1Api).readNode({ name: String(i) })));
    expect(clientFactoryTransport(f).limiter).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(1500);
  });

  it('validates options, naming the field', () => {
    expect(() => make({ contentType: 'application/vnd.kubernetes.protobuf' })).toThrow(/contentType/);
    expect(() => make({ qps: 0 })).toThrow(/qps/);
    expect(() => make({ burst: 0 })).toThrow(/burst/);
    expect(() => make({ timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(() => createClientFactory({ kubeConfig: {} as never })).toThrow(/kubeConfig/);
  });

  it('config(name) returns an independent copy of the KubeConfig', () => {
    const f = make();
    const kc = f.config('x');
    expect(kc).not.toBe(srv.kubeConfig);
    expect(kc.getCurrentCluster()?.server).toBe(srv.url);
    expect(kc.getCurrentUser()?.token).toBe('secret-token');
  });
});

/** RestTransport's answers over undici `Dispatcher.request`: gzip, the timeout over the body, cancellation. */
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClientFactory } from '../src/client/index.js';
import { startTestServer, type TestServer } from './client-test-server.js';

describe('RestTransport responses', () => {
  let srv: TestServer;
  beforeEach(async () => {
    srv = await startTestServer();
  });
  afterEach(async () => {
    await srv.close();
  });
  const make = (timeoutMs: number) => createClientFactory({ kubeConfig: srv.kubeConfig, qps: -1, timeoutMs });
  /** Answers with headers and the start of a body, then nothing more. */
  const stallBody = () =>
    srv.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items": [');
    });

  it('asks for gzip as client-go does and decodes a gzip answer', async () => {
    const big = { items: Array.from({ length: 200 }, (_, i) => ({ name: `n-${i}` })) };
    srv.setHandler((_req, res) => {
      const z = gzipSync(JSON.stringify(big));
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': z.length,
      });
      res.end(z);
    });
    const f = make(5000);
    const resp = await f.request('c', '/api/v1/nodes', { query: { limit: 500, labelSelector: 'a=b c' } });
    expect(resp.status).toBe(200);
    expect(resp.headers.get('Content-Type')).toBe('application/json');
    expect(await resp.json()).toEqual(big);
    const req = srv.requests.at(-1)!;
    expect(req.headers['accept-encoding']).toBe('gzip');
    expect(req.url.pathname + req.url.search).toBe('/api/v1/nodes?limit=500&labelSelector=a%3Db+c');
    await f.close();
  });

  it('reads a body of many chunks whole, and fails a body the server cuts off', async () => {
    const parts = Array.from({ length: 50 }, (_, i) => `"${String(i).padStart(4, '0')}${'x'.repeat(4000)}"`);
    srv.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (const [i, p] of parts.entries()) res.write(`${i === 0 ? '[' : ','}${p}`);
      res.end(']');
    });
    const f = make(5000);
    const whole = await f.request('c', '/api/v1/nodes');
    expect(await whole.text()).toBe(`[${parts.join(',')}]`);
    srv.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('{"items": [');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const cut = await f.request('c', '/api/v1/nodes');
    await expect(cut.text()).rejects.toThrow();
    await f.close();
  });

  it('times out a response whose body stalls, with the TimeoutError of AbortSignal.timeout', async () => {
    stallBody();
    const f = make(300);
    const resp = await f.request('c', '/api/v1/nodes');
    const err = await resp.text().catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
    await f.close();
  });

  it('ends a body read with the caller abort reason, and cancel() discards a body', async () => {
    stallBody();
    const f = make(0);
    const ac = new AbortController();
    const resp = await f.request('c', '/api/v1/nodes', { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('caller stopped')), 50);
    await expect(resp.text()).rejects.toThrow('caller stopped');
    srv.setHandler((_req, res) => {
      res.end('ok');
    });
    const ok = await f.request('c', '/readyz');
    await ok.cancel();
    expect(ok.body.destroyed || ok.body.readableEnded).toBe(true);
    await f.close();
  });
});

/**
 * RestTransport over its own node:http2 session (an https:// server without a proxy), against a local HTTP/2 TLS
 * server: one session for all requests, gzip, the timeout over the body, caller abort, the write guard at the open
 * of the stream, reconnect after GOAWAY, failures without an answer, and close() with streams in flight.
 */
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RestTransport, TransportError } from '../src/client/transport.js';
import { TinyCA } from '../src/internal.js';

type Handler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void;

let tls: { caPem: string; certPem: string; keyPem: string };
beforeAll(async () => {
  const ca = await TinyCA.create();
  const serving = await ca.issue({ commonName: 'localhost', ipAddresses: ['127.0.0.1'], usage: 'server' });
  tls = { caPem: ca.certPem, ...serving };
});

describe('RestTransport over node:http2', () => {
  let server: http2.Http2SecureServer;
  let url: string;
  let handler: Handler;
  const seen: http2.IncomingHttpHeaders[] = [];
  const sessions = new Set<http2.ServerHttp2Session>();
  const transports: RestTransport[] = [];

  beforeEach(async () => {
    seen.length = 0;
    handler = (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      stream.end('{"kind":"Status"}');
    };
    server = http2.createSecureServer({ key: tls.keyPem, cert: tls.certPem });
    server.on('session', (s) => {
      sessions.add(s);
      s.on('close', () => sessions.delete(s));
    });
    server.on('stream', (stream, headers) => {
      seen.push(headers);
      stream.on('error', () => undefined);
      handler(stream, headers);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    for (const t of transports.splice(0)) await t.close();
    for (const s of sessions) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const make = (timeoutMs = 5000, server = url) => {
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser(
      { name: 'h2', server, caData: Buffer.from(tls.caPem).toString('base64'), skipTLSVerify: false },
      { name: 'u', token: 'secret-token' },
    );
    const t = new RestTransport(kc, { qps: -1, burst: 1, timeoutMs });
    transports.push(t);
    return t;
  };

  it('sends every request, in parallel too, as a stream of one verified TLS session', async () => {
    const t = make();
    const first = await t.request('/api/v1/nodes', 'ua-test', { query: { limit: 5 } });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ kind: 'Status' });
    const many = await Promise.all(Array.from({ length: 20 }, () => t.request('/api/v1/nodes', 'ua-test')));
    await Promise.all(many.map((r) => r.text()));
    expect(t.connectionsOpened).toBe(1);
    expect(sessions.size).toBe(1);
    const h = seen[0]!;
    expect(h[':path']).toBe('/api/v1/nodes?limit=5');
    expect(h['user-agent']).toBe('ua-test');
    expect(h.authorization).toBe('Bearer secret-token');
    expect(h['accept-encoding']).toBe('gzip');
    expect(h.accept).toBe('application/json');
    const names: string[] = [];
    first.headers.forEach((_v, k) => names.push(k));
    expect(names).toContain('content-type');
    expect(names.filter((k) => k.startsWith(':'))).toEqual([]);
  });

  it('reads an answer, plain or gzip, whose stream ended before the caller read it', async () => {
    const t = make();
    for (const gzip of [false, true]) {
      handler = (stream) => {
        stream.respond({ ':status': 200, ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
        stream.end(gzip ? gzipSync('{"kind":"Node"}') : '{"kind":"Node"}');
      };
      const resp = await t.request('/api/v1/nodes/a', 'c');
      // As under load: the caller comes to the body a few turns of the event loop after the answer arrived.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(await resp.json()).toEqual({ kind: 'Node' });
    }
  });

  it('sends the body of a write and decodes a gzip answer', async () => {
    const big = { items: Array.from({ length: 300 }, (_, i) => ({ name: `n-${i}` })) };
    let received = '';
    handler = (stream) => {
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => (received += c));
      stream.on('end', () => {
        stream.respond({ ':status': 201, 'content-encoding': 'gzip' });
        stream.end(gzipSync(JSON.stringify(big)));
      });
    };
    const resp = await make().request('/api/v1/namespaces/default/configmaps', 'c', {
      method: 'POST',
      body: '{"metadata":{"name":"x"}}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(resp.status).toBe(201);
    expect(await resp.json()).toEqual(big);
    expect(received).toBe('{"metadata":{"name":"x"}}');
    expect(seen[0]![':method']).toBe('POST');
    expect(seen[0]!['content-type']).toBe('application/json');
  });

  it('times out a body that stalls, and a caller abort rejects with its reason', async () => {
    handler = (stream) => {
      stream.respond({ ':status': 200 });
      stream.write('{"items": [');
    };
    const t = make(300);
    const resp = await t.request('/api/v1/nodes', 'c');
    await expect(resp.text()).rejects.toMatchObject({ name: 'TimeoutError' });

    handler = () => undefined; // never answers
    const ac = new AbortController();
    const pending = t.request('/api/v1/nodes', 'c', { signal: ac.signal, watch: true });
    setTimeout(() => ac.abort(new Error('caller gave up')), 50);
    await expect(pending).rejects.toThrow('caller gave up');
    expect(t.connectionsOpened).toBe(1);
  });

  it('cancel() resets the stream and the session stays', async () => {
    handler = (stream) => {
      stream.respond({ ':status': 200 });
      stream.write('partial');
    };
    const t = make();
    const resp = await t.request('/api/v1/nodes', 'c');
    await resp.cancel();
    handler = (stream) => {
      stream.respond({ ':status': 200 });
      stream.end('ok');
    };
    expect(await (await t.request('/api/v1/nodes', 'c')).text()).toBe('ok');
    expect(t.connectionsOpened).toBe(1);
  });

  it('runs the write guard before the limiter and again when the stream opens; a refusal sends nothing', async () => {
    const t = make();
    await (await t.request('/healthz', 'c')).text(); // connected
    const calls: string[] = [];
    t.setWriteGuard((method, u) => {
      calls.push(`${method} ${u.pathname}`);
      if (calls.length === 2) throw new Error('deposed');
    });
    const err = await t.request('/api/v1/nodes', 'c', { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as Error).message).toContain('deposed');
    expect(calls).toEqual(['POST /api/v1/nodes', 'POST /api/v1/nodes']);
    expect(seen.map((h) => h[':path'])).toEqual(['/healthz']);
  });

  it('connects anew after the server sent GOAWAY', async () => {
    const t = make();
    await (await t.request('/a', 'c')).text();
    for (const s of sessions) s.goaway();
    await new Promise((r) => setTimeout(r, 50));
    expect(await (await t.request('/b', 'c')).text()).toBe('{"kind":"Status"}');
    expect(t.connectionsOpened).toBe(2);
  });

  it('throws TransportError with the system code when nothing answers', async () => {
    const closed = http2.createSecureServer({ key: tls.keyPem, cert: tls.certPem });
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await make(5000, `https://127.0.0.1:${port}`)
      .request('/api/v1/nodes', 'c')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).code).toBe('ECONNREFUSED');
  });

  it('close() ends streams in flight without an uncaught error', async () => {
    handler = (stream) => {
      stream.respond({ ':status': 200 });
      stream.write('{"type":"ADDED"}\n');
    };
    const t = make();
    const watch = await t.request('/api/v1/nodes', 'c', { query: { watch: true }, watch: true });
    const read = watch.text();
    handler = () => undefined;
    const pending = t.request('/api/v1/nodes', 'c').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    await t.close();
    await expect(read).rejects.toThrow('RestTransport: closed');
    expect(await pending).toBeInstanceOf(TransportError);
    await expect(t.request('/api/v1/nodes', 'c')).rejects.toThrow('closed');
  });
});

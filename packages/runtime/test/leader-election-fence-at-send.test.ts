/**
 * The lease fence checked inside the undici dispatcher, at the moment a request is written (decision 0050).
 * Regression for the chaos runs where a fenced leader sent requests that had passed the check before they
 * entered undici and then waited there for a connection (seed 101: five requests sent when kube-apiserver
 * answered again, 5 s after the fence closed). Each test queues a request behind a slow one on a pool of one
 * connection, closes a controllable fake fence while it waits, and checks that the server never sees it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { Registry } from 'prom-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RestTransport } from '../src/client/transport.js';
import { CloudCallGuard } from '../src/guard/index.js';
import {
  isLeaseFencedError,
  type LeaseFence,
  LeaseFencedError,
  leaseFenceInterceptor,
} from '../src/leader-election/index.js';
import { leaseWriteGuard, setProcessLeaseFence } from '../src/internal.js';
import { startTestServer, type TestServer } from './client-test-server.js';

/** A fence the test opens and closes; never closes on its own (no timing involved). */
function fakeFence(): LeaseFence & { fenced: boolean } {
  const f = {
    fenced: false,
    isFenced: () => f.fenced,
    validForMs: () => (f.fenced ? 0 : 60_000),
    describe: () => 'kube-system/ccm',
  };
  return f;
}

/** Polls every 5 ms, for up to 5 s. */
const UNTIL = { timeoutMs: 5_000, intervalMs: 5 };

/** A gate the server holds `/slow` on until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

describe('RestTransport: the write guard at the moment of the write', () => {
  let srv: TestServer | undefined;
  let transport: RestTransport | undefined;
  afterEach(async () => {
    await transport?.close();
    await srv?.close();
  });

  it('a write queued for the only connection when the fence closes is never sent; the caller gets LeaseFencedError', async () => {
    const slow = gate();
    srv = await startTestServer(async (req, res) => {
      if (req.url.pathname === '/slow') await slow.wait;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    transport = new RestTransport(srv.kubeConfig, { qps: -1, burst: 1, timeoutMs: 0, maxConnections: 1 });
    const fence = fakeFence();
    const guard = leaseWriteGuard(() => fence);
    let deposeAfterFirstWriteCheck = true;
    transport.setWriteGuard((method, url) => {
      guard(method, url);
      // The write passed the early check; the process is deposed before the write leaves (as by a pause).
      if (method === 'POST' && deposeAfterFirstWriteCheck) {
        deposeAfterFirstWriteCheck = false;
        fence.fenced = true;
      }
    });

    const first = transport.request('/slow', 'test');
    await eventuallyValue(() => srv!.requests.length === 1, UNTIL);
    // Passes the early check, then waits in the pool for the busy connection while the fence is closed.
    const write = transport
      .request('/api/v1/namespaces/default/configmaps', 'test', { method: 'POST', body: '{}' })
      .catch((e: unknown) => e);
    await eventuallyValue(() => fence.fenced, UNTIL);
    slow.open();
    expect((await first).status).toBe(200);
    const err = await write;
    expect(err).toBeInstanceOf(LeaseFencedError);
    expect((err as Error).message).toMatch(/^API write POST \/api\/v1\/namespaces\/default\/configmaps refused/);
    expect(srv.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual(['GET /slow']);

    // Reads still pass while fenced, and writes go out again once the fence opens.
    expect((await transport.request('/api/v1/nodes', 'test')).status).toBe(200);
    fence.fenced = false;
    const ok = await transport.request('/api/v1/namespaces/default/configmaps', 'test', { method: 'POST', body: '{}' });
    expect(ok.status).toBe(200);
    expect(srv.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'GET /slow',
      'GET /api/v1/nodes',
      'POST /api/v1/namespaces/default/configmaps',
    ]);
  });
});

describe('a provider client through CloudCallGuard.dispatcher / leaseFenceInterceptor', () => {
  let server: Server | undefined;
  const seen: string[] = [];
  let slow = gate();
  afterEach(async () => {
    setProcessLeaseFence(undefined);
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    seen.length = 0;
    slow = gate();
  });

  async function startCloud(): Promise<string> {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      if (req.url === '/slow') void slow.wait.then(answer);
      else answer();
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('a cloud request queued when the fence closes is never sent, fails with LeaseFencedError and is not retried', async () => {
    const url = await startCloud();
    const fence = fakeFence();
    setProcessLeaseFence(fence);
    const registry = new Registry();
    const guard = new CloudCallGuard({ provider: 'fencetest', registry, dispatcher: new Agent({ connections: 1 }) });
    const send = (operation: string, method: string, path: string) =>
      guard.call(operation, async ({ signal, dispatcher }) => {
        const res = await undiciFetch(url + path, { method, signal, dispatcher });
        return res.text();
      });

    const first = send('slow_read', 'GET', '/slow');
    await eventuallyValue(() => seen.length === 1, UNTIL);
    const create = send('create_thing', 'POST', '/things').catch((e: unknown) => e);
    fence.fenced = true;
    slow.open();
    await first;
    const err = await create;
    expect(isLeaseFencedError(err)).toBe(true); // the guard unwraps fetch's `fetch failed`
    expect((err as Error).message).toMatch(/^cloud request POST \/things refused/);
    expect(seen).toEqual(['GET /slow']);
    const attempts = await registry.getSingleMetric('cloudprovider_fencetest_api_request_attempts_total')!.get();
    expect(attempts.values.filter((v) => v.labels.request === 'create_thing').map((v) => v.value)).toEqual([1]);

    fence.fenced = false;
    await send('create_thing', 'POST', '/things');
    expect(seen).toEqual(['GET /slow', 'POST /things']);
    await guard.dispatcher.close();
  });

  it('leaseFenceInterceptor refuses nothing without a fence, and passes exempt requests while fenced', async () => {
    const url = await startCloud();
    const agent = new Agent().compose(leaseFenceInterceptor({ exempt: (method) => method === 'GET' }));
    expect((await undiciFetch(`${url}/a`, { method: 'POST', dispatcher: agent })).status).toBe(200);
    const fence = fakeFence();
    fence.fenced = true;
    setProcessLeaseFence(fence);
    expect((await undiciFetch(`${url}/b`, { dispatcher: agent })).status).toBe(200);
    const err = await undiciFetch(`${url}/c`, { method: 'DELETE', dispatcher: agent }).catch((e: unknown) => e);
    expect(isLeaseFencedError((err as Error).cause)).toBe(true);
    expect(seen).toEqual(['POST /a', 'GET /b']);
    await agent.close();
  });
});

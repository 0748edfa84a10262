/**
 * Closing the transport while requests wait for the client rate limiter: they are not sent on the closed
 * connections, and their callers get the transport's own error.
 */
import { afterEach, expect, it } from 'vitest';
import { RestTransport } from '../src/client/transport.js';
import { startTestServer, type TestServer } from './client-test-server.js';

let srv: TestServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

it('a request that waited for the rate limiter while the transport closed rejects with "RestTransport: closed"', async () => {
  srv = await startTestServer();
  // One token, then one every 200 ms: the second request waits in the limiter.
  const transport = new RestTransport(srv.kubeConfig, { qps: 5, burst: 1, timeoutMs: 0 });
  const first = transport.request('/api/v1/nodes/a', 'test').then((r) => r.cancel());
  const queued = transport.request('/api/v1/nodes/b', 'test').then(
    () => undefined,
    (err: unknown) => err as Error,
  );
  await first;
  await transport.close();
  expect((await queued)?.message).toBe('RestTransport: closed');
  expect(srv.requests.map((r) => r.url.pathname)).toEqual(['/api/v1/nodes/a']);
});

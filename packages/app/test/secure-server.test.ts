/**
 * The secure port's authentication/authorization answers as k8s.io/apiserver writes them (upstream `k8s.io/cloud-provider app/controllermanager.go Run`):
 * 401 and 403 are `metav1.Status` JSON; certificate users get `system:authenticated`; a client certificate the
 * client CA does not verify is a 401, not an anonymous request.
 */
import { request } from 'node:https';
import { createLogger } from '@ccm-kit/runtime';
import { TinyCA } from '@ccm-kit/runtime/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelegatedAuth, type UserInfo } from '../src/serving/delegated-auth.js';
import { type RunningServer, startSecureServer } from '../src/serving/secure-server.js';

let server: RunningServer;
let ca: TinyCA;
let other: TinyCA;
const seen: UserInfo[] = [];

class RecordingAuth extends DelegatedAuth {
  override async authorize(user: UserInfo, verb: string, path: string): Promise<boolean> {
    seen.push(user);
    return super.authorize(user, verb, path);
  }
}

beforeAll(async () => {
  ca = await TinyCA.create('client-ca', 'test', 3_600_000);
  other = await TinyCA.create('other-ca', 'test', 3_600_000);
  const serving = await ca.issue({
    commonName: 'localhost',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  server = await startSecureServer({
    bindAddress: '127.0.0.1',
    port: 0,
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    clientCaPem: ca.certPem,
    auth: new RecordingAuth({
      alwaysAllowPaths: ['/healthz'],
      tokenCacheTtlMs: 0,
      authorizedTtlMs: 0,
      unauthorizedTtlMs: 0,
      clientCertAuth: true,
    }),
    routes: { '/healthz': () => ({ status: 200, body: 'ok' }), '/metrics': () => ({ status: 200, body: 'm' }) },
    logger: createLogger('secure-server-test'),
  });
});
afterAll(async () => {
  await server?.close();
});

function get(path: string, client?: { certPem: string; keyPem: string }, token?: string) {
  return new Promise<{ status: number; body: string; contentType: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        rejectUnauthorized: false,
        ...(client ? { cert: client.certPem, key: client.keyPem } : {}),
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, contentType: String(res.headers['content-type']) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('secure serving filter answers', () => {
  it('403 is a metav1.Status naming the user, verb and path', async () => {
    const r = await get('/metrics');
    expect(r.status).toBe(403);
    expect(r.contentType).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'forbidden: User "system:anonymous" cannot get path "/metrics"',
      reason: 'Forbidden',
      details: {},
      code: 403,
    });
  });

  it('401 is a metav1.Status; a client certificate from another CA is not treated as anonymous', async () => {
    const foreign = await other.issue({ commonName: 'mallory', dnsNames: [], ipAddresses: [], usage: 'client' });
    const r = await get('/healthz', foreign);
    expect(r.status).toBe(401);
    expect(r.contentType).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });

  it('a verified client certificate authenticates as CN with O groups plus system:authenticated', async () => {
    const alice = await ca.issue({
      commonName: 'alice',
      organizations: ['team-a'],
      dnsNames: [],
      ipAddresses: [],
      usage: 'client',
    });
    seen.length = 0;
    expect((await get('/healthz', alice)).status).toBe(200);
    expect(seen).toEqual([{ name: 'alice', groups: ['team-a', 'system:authenticated'] }]);
  });
});

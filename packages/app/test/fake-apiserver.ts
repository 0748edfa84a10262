/**
 * A tiny in-memory HTTP stand-in for the API server, enough for the manager's start-up and shutdown paths in
 * unit tests: Leases (get/create/replace, with a switch that makes renewals fail), Events (accepted), and
 * every request recorded with its method, path and User-Agent. Anything else answers 404.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export interface RecordedRequest {
  method: string;
  path: string;
  userAgent: string;
  authorization: string;
}

export interface FakeApiServer {
  readonly kubeConfig: KubeConfig;
  readonly requests: RecordedRequest[];
  /** When true (or the Lease's name), Lease updates answer 500 (the holder cannot renew: leadership is lost). */
  failLeaseUpdates: boolean | string;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeApiServer(): Promise<FakeApiServer> {
  const leases = new Map<string, Record<string, unknown>>();
  let rv = 1;
  const state: { failLeaseUpdates: boolean | string } = { failLeaseUpdates: false };
  const requests: RecordedRequest[] = [];
  const serviceAccounts = new Map<string, unknown>();
  const tokenCount = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      requests.push({
        method: req.method ?? '',
        path,
        userAgent: String(req.headers['user-agent'] ?? ''),
        authorization: String(req.headers.authorization ?? ''),
      });
      const text = await body(req);
      const send = (status: number, obj: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      const notFound = () =>
        send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
      const lease = path.match(/^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases(?:\/([^/]+))?$/);
      if (lease) {
        const key = `${lease[1]}/${lease[2] ?? ''}`;
        if (req.method === 'GET') {
          const l = leases.get(key);
          return l ? send(200, l) : notFound();
        }
        const obj = JSON.parse(text) as { metadata: Record<string, unknown> };
        const failing = state.failLeaseUpdates === true || state.failLeaseUpdates === lease[2];
        if (req.method === 'PUT' && failing) {
          return send(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, message: 'boom' });
        }
        obj.metadata = { ...obj.metadata, namespace: lease[1], resourceVersion: String(rv++) };
        leases.set(`${lease[1]}/${obj.metadata.name as string}`, obj);
        return send(req.method === 'POST' ? 201 : 200, obj);
      }
      const sa = path.match(/^\/api\/v1\/namespaces\/([^/]+)\/serviceaccounts(?:\/([^/]+))?(\/token)?$/);
      if (sa) {
        const key = `${sa[1]}/${sa[2] ?? ''}`;
        if (sa[3] && req.method === 'POST') {
          if (!serviceAccounts.has(key)) return notFound();
          const n = (tokenCount.get(key) ?? 0) + 1;
          tokenCount.set(key, n);
          return send(201, {
            kind: 'TokenRequest',
            apiVersion: 'authentication.k8s.io/v1',
            spec: JSON.parse(text).spec,
            status: {
              token: `token-${sa[2]}-${n}`,
              expirationTimestamp: new Date(Date.now() + 3_600_000).toISOString(),
            },
          });
        }
        if (req.method === 'GET' && sa[2])
          return serviceAccounts.has(key) ? send(200, serviceAccounts.get(key)) : notFound();
        if (req.method === 'POST' && !sa[2]) {
          const obj = JSON.parse(text) as { metadata: { name: string } };
          serviceAccounts.set(`${sa[1]}/${obj.metadata.name}`, obj);
          return send(201, obj);
        }
      }
      if (/\/events(\/|$)/.test(path) && (req.method === 'POST' || req.method === 'PATCH')) {
        return send(201, JSON.parse(text || '{}'));
      }
      notFound();
    })().catch(() => {
      res.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'fake', token: 'fake-token' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
    currentContext: 'fake',
  });
  return {
    kubeConfig: kc,
    requests,
    get failLeaseUpdates() {
      return state.failLeaseUpdates;
    },
    set failLeaseUpdates(v: boolean | string) {
      state.failLeaseUpdates = v;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * A scriptable plain-HTTP fake API server on 127.0.0.1 for the client and informer unit tests,
 * and a KubeConfig pointing at it.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Remote port of the client socket (identifies the connection). */
  remotePort: number;
}

export type Handler = (req: RecordedRequest, res: http.ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  kubeConfig: KubeConfig;
  requests: RecordedRequest[];
  /** Sockets the server has accepted. */
  connections: number;
  setHandler(h: Handler): void;
  close(): Promise<void>;
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function status(code: number, reason: string, message = reason): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

export async function startTestServer(handler: Handler = (_r, res) => sendJson(res, 200, {})): Promise<TestServer> {
  let h = handler;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const state = { connections: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: RecordedRequest = {
        method: req.method ?? '',
        url: new URL(req.url ?? '/', 'http://127.0.0.1'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort ?? 0,
      };
      requests.push(rec);
      Promise.resolve(h(rec, res)).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, status(500, 'InternalError', String(err)));
      });
    });
  });
  server.on('connection', (s) => {
    state.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser(
    { name: 'test', server: url, skipTLSVerify: true },
    { name: 'tester', token: 'secret-token' },
  );
  return {
    url,
    kubeConfig,
    requests,
    get connections() {
      return state.connections;
    },
    setHandler(nh) {
      h = nh;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

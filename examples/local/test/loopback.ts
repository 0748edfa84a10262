/**
 * Real servers and clients on loopback for the data-plane tests (beside `net.ts`'s free ports and HTTP GETs):
 * HTTP and UDP servers standing in for the nodes' node ports, kube-proxy's health-check server, UDP clients,
 * free UDP ports and polling.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { parseConfig } from '../src/config.js';
import { freePort } from './net.js';
import { createServer as httpServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { eventuallyValue } from '@ccm-kit/testing/vitest';

/** A config for load balancers on loopback: IPv4 pool 127.0.2.0/24 and `::1`, no drain time. */
export const loopbackConfig = parseConfig(`
inventory: unused.yaml
drainTimeout: 0s
pools:
  - name: global
    addresses: [127.0.2.0/24, "::1"]
`);

export interface FakeNode {
  readonly name: string;
  readonly ip: string;
  readonly port: number;
  hits: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** An HTTP server on ip:port answering its name (after `delayMs`). */
export async function fakeNode(name: string, ip: string, port: number, delayMs = 0): Promise<FakeNode> {
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  const node: FakeNode = {
    name,
    ip,
    port,
    hits: 0,
    async start() {
      server = httpServer((_req, res) => {
        node.hits++;
        setTimeout(() => res.end(name), delayMs);
      });
      server.on('connection', (s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, ip, () => resolve());
      });
    },
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      const closed = new Promise<void>((r) => s.close(() => r()));
      for (const sock of sockets) sock.destroy();
      await closed;
    },
  };
  await node.start();
  return node;
}

export async function failure(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the request to fail');
}

/** Polls `cond` every 10 ms until it holds (at most 20 s: the machine may be loaded). */
export const waitFor = (cond: () => boolean) => eventuallyValue(cond, { timeoutMs: 20_000, intervalMs: 10 });

/** A UDP server on ip:port answering each datagram with `<name>:<datagram>`. */
export async function udpNode(
  name: string,
  ip: string,
  port: number,
): Promise<{ received: number; close(): Promise<void> }> {
  const socket = createSocket(ip.includes(':') ? 'udp6' : 'udp4');
  const node = {
    received: 0,
    close: () => new Promise<void>((r) => socket.close(() => r())),
  };
  socket.on('message', (msg, rinfo) => {
    node.received++;
    socket.send(`${name}:${msg.toString()}`, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, ip, () => resolve());
  });
  return node;
}

/** A free UDP port on `ip` now. */
export async function freeUdpPort(ip: string): Promise<number> {
  const s = createSocket(ip.includes(':') ? 'udp6' : 'udp4');
  await new Promise<void>((r) => s.bind(0, ip, () => r()));
  const { port } = s.address();
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A port free for both TCP and UDP on `ip` now. */
export async function freeTcpUdpPort(ip: string): Promise<number> {
  for (;;) {
    const port = await freePort(ip);
    const s = createSocket(ip.includes(':') ? 'udp6' : 'udp4');
    const free = await new Promise<boolean>((resolve) => {
      s.once('error', () => resolve(false));
      s.bind(port, ip, () => resolve(true));
    });
    await new Promise<void>((r) => (free ? s.close(() => r()) : r()));
    if (free) return port;
  }
}

/** A UDP client socket (one flow: one local address and port). */
export class UdpClient {
  readonly #socket: UdpSocket;
  readonly #replies: string[] = [];
  readonly #waiters: ((reply: string) => void)[] = [];

  private constructor(socket: UdpSocket) {
    this.#socket = socket;
    socket.on('message', (msg) => {
      const waiter = this.#waiters.shift();
      if (waiter) waiter(msg.toString());
      else this.#replies.push(msg.toString());
    });
  }

  /** A client bound to `localAddress` (default: the loopback of the family of `family`). */
  static async open(family: 'udp4' | 'udp6' = 'udp4', localAddress?: string): Promise<UdpClient> {
    const socket = createSocket(family);
    await new Promise<void>((r) =>
      socket.bind(0, localAddress ?? (family === 'udp6' ? '::1' : '127.0.0.1'), () => r()),
    );
    return new UdpClient(socket);
  }

  /** Sends `text` to ip:port and resolves the next reply; rejects when none comes within `timeoutMs`. */
  ask(ip: string, port: number, text: string, timeoutMs = 5_000): Promise<string> {
    const queued = this.#replies.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const waiter = (reply: string) => {
        clearTimeout(timer);
        resolve(reply);
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`no UDP reply from ${ip}:${port} within ${timeoutMs}ms`));
      }, timeoutMs);
      this.#waiters.push(waiter);
      this.#socket.send(text, port, ip);
    });
  }

  close(): Promise<void> {
    return new Promise((r) => this.#socket.close(() => r()));
  }
}

/**
 * kube-proxy's health-check server of one Service on one node (`pkg/proxy/healthcheck/service_health.go`):
 * `GET /healthz` answers 200 while `localEndpoints` > 0 and 503 otherwise, with the JSON body kube-proxy sends.
 */
export async function kubeProxyHealth(
  ip: string,
  port: number,
  localEndpoints: number,
): Promise<{ localEndpoints: number; probes: number; close(): Promise<void> }> {
  const state = {
    localEndpoints,
    probes: 0,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server = httpServer((req, res) => {
    state.probes++;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Load-Balancing-Endpoint-Weight', String(state.localEndpoints));
    res.statusCode = req.url === '/healthz' && state.localEndpoints > 0 ? 200 : 503;
    res.end(
      JSON.stringify({
        service: { namespace: 'default', name: 'web' },
        localEndpoints: state.localEndpoints,
        serviceProxyHealthy: true,
      }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, ip, () => resolve());
  });
  return state;
}

/**
 * One TCP listener of a load balancer (an allocated address and a Service port) that forwards each
 * connection to a healthy backend (a node address and the port's node port).
 *
 * - Clients outside the source ranges are disconnected at once.
 * - `round-robin` rotates over healthy backends; `source-hash` pins a client address to a backend while the
 *   set of healthy backends stays the same. When connecting to the chosen backend fails (refused, or no
 *   answer within the connect timeout), the next one is tried; the client's bytes wait meanwhile.
 * - With no healthy backend the connection is closed.
 * - Backends and options change in place ({@link TcpProxy.update}); the listener and open connections stay.
 * - {@link TcpProxy.close} stops accepting, lets open connections finish for the drain time, then cuts them.
 */
import { BlockList, connect, createServer, isIPv6, type Server, type Socket } from 'node:net';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import type { Algorithm } from '../annotations.js';
import { canonicalIP } from '../ip.js';
import { type Backend, backendKey } from './health.js';

/** Settings of a listener that may change while it runs. Durations in milliseconds. */
export interface TcpProxySettings {
  readonly backends: readonly Backend[];
  readonly algorithm: Algorithm;
  readonly connectTimeoutMs: number;
  /** Allowed client CIDRs; `undefined` allows every client. */
  readonly sourceRanges?: readonly string[];
}

/** Options of {@link TcpProxy.listen}. */
export interface TcpProxyOptions extends TcpProxySettings {
  readonly address: string;
  readonly port: number;
  /** Health of a backend by {@link backendKey}; default: every backend is healthy. */
  readonly isHealthy?: (key: string) => boolean;
  readonly logger?: Logger;
}

/** Counters of a listener. */
export interface TcpProxyStats {
  /** Connections accepted and forwarded (or being connected). */
  accepted: number;
  /** Connections refused because the client is outside the source ranges. */
  rejected: number;
  /** Connections closed because no backend was healthy or every attempt failed. */
  unserved: number;
  /** Failed connection attempts to backends. */
  connectFailures: number;
  /** Connections open now. */
  active: number;
}

interface Conn {
  client: Socket;
  /** The backend connection (or the attempt in progress). */
  upstream?: Socket;
  /** True once the upstream connection is established and piped. */
  connected: boolean;
}

function blockList(ranges: readonly string[] | undefined): BlockList | undefined {
  if (ranges === undefined) return undefined;
  const list = new BlockList();
  for (const cidr of ranges) {
    const [net = '', prefix = ''] = cidr.split('/');
    list.addSubnet(net, Number(prefix), isIPv6(net) ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** FNV-1a of a string, for source hashing. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export class TcpProxy {
  readonly address: string;
  readonly port: number;
  readonly #server: Server;
  readonly #isHealthy: (key: string) => boolean;
  readonly #logger: Logger;
  readonly #conns = new Set<Conn>();
  readonly #stats: TcpProxyStats = { accepted: 0, rejected: 0, unserved: 0, connectFailures: 0, active: 0 };
  #settings: TcpProxySettings;
  #allowed: BlockList | undefined;
  #next = 0;
  #closing: Promise<void> | undefined;

  private constructor(options: TcpProxyOptions, server: Server) {
    this.address = options.address;
    this.port = options.port;
    this.#server = server;
    this.#isHealthy = options.isHealthy ?? (() => true);
    this.#logger = options.logger ?? createLogger('local-proxy');
    this.#settings = options;
    this.#allowed = blockList(options.sourceRanges);
  }

  /**
   * Binds `address:port` and starts forwarding.
   * @throws Error naming the address and port when it cannot be bound (in use, or not an address of this host).
   */
  static async listen(options: TcpProxyOptions): Promise<TcpProxy> {
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: true });
    const proxy = new TcpProxy(options, server);
    server.on('connection', (socket) => proxy.#accept(socket));
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => {
        const hint =
          err.code === 'EADDRNOTAVAIL'
            ? ' (not an address of this host: on Linux any 127.0.0.0/8 address works; add others with `ip addr add <ip>/32 dev lo`, or `ifconfig lo0 alias <ip>` on macOS)'
            : err.code === 'EADDRINUSE'
              ? ' (something else listens there)'
              : '';
        reject(
          new Error(
            `cannot listen on ${options.address}:${options.port}: ${err.code ?? err.message}${hint}`,
            { cause: err },
          ),
        );
      };
      server.once('error', onError);
      server.listen({ host: options.address, port: options.port, exclusive: true }, () => {
        server.removeListener('error', onError);
        server.on('error', (err) => proxy.#logger.error(err, 'Listener error', { listener: proxy.name }));
        resolve();
      });
    });
    return proxy;
  }

  /** `address:port` (IPv6 in brackets). */
  get name(): string {
    return backendKey({ host: this.address, port: this.port });
  }

  /** A copy of the counters. */
  get stats(): TcpProxyStats {
    return { ...this.#stats };
  }

  /** The current settings. */
  get settings(): TcpProxySettings {
    return this.#settings;
  }

  /** Changes backends, algorithm, timeout or source ranges in place; open connections are kept. */
  update(settings: Partial<TcpProxySettings>): void {
    this.#settings = { ...this.#settings, ...settings };
    if ('sourceRanges' in settings) this.#allowed = blockList(settings.sourceRanges);
  }

  /**
   * Stops accepting, waits up to `drainMs` for open connections to finish, then cuts the rest.
   * Resolves when the listener and every connection are closed. Idempotent.
   */
  close(drainMs = 0): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      const cut = () => {
        for (const c of this.#conns) {
          c.client.destroy();
          c.upstream?.destroy();
        }
      };
      if (drainMs <= 0 || this.#conns.size === 0) cut();
      else setTimeout(cut, drainMs).unref();
    });
    return this.#closing;
  }

  #accept(client: Socket): void {
    const remote = canonicalIP(client.remoteAddress ?? '') ?? '';
    if (this.#allowed && !this.#allowed.check(remote, remote.includes(':') ? 'ipv6' : 'ipv4')) {
      this.#stats.rejected++;
      this.#logger.v(4).info('Connection refused by source ranges', { listener: this.name, client: remote });
      client.destroy();
      return;
    }
    const healthy = this.#settings.backends.filter((b) => this.#isHealthy(backendKey(b)));
    if (healthy.length === 0) {
      this.#stats.unserved++;
      this.#logger.warn('No healthy backend; closing the connection', {
        listener: this.name,
        client: remote,
      });
      client.destroy();
      return;
    }
    const start =
      this.#settings.algorithm === 'source-hash'
        ? hash(remote) % healthy.length
        : this.#next++ % healthy.length;
    const order = [...healthy.slice(start), ...healthy.slice(0, start)];
    const conn: Conn = { client, connected: false };
    this.#conns.add(conn);
    this.#stats.accepted++;
    this.#stats.active++;
    client.on('error', () => {}); // reported through 'close'
    client.once('close', () => {
      this.#conns.delete(conn);
      this.#stats.active--;
      if (!conn.connected) conn.upstream?.destroy(); // gave up while connecting
    });
    this.#try(conn, order, 0);
  }

  #try(conn: Conn, order: readonly Backend[], i: number): void {
    const { client } = conn;
    if (client.destroyed) return;
    const backend = order[i];
    if (backend === undefined) {
      this.#stats.unserved++;
      this.#logger.warn('Every backend failed; closing the connection', { listener: this.name });
      client.destroy();
      return;
    }
    const upstream = connect({ host: backend.host, port: backend.port, allowHalfOpen: true });
    conn.upstream = upstream;
    const timer = setTimeout(
      () => upstream.destroy(new Error(`connect timeout after ${this.#settings.connectTimeoutMs}ms`)),
      this.#settings.connectTimeoutMs,
    );
    const onConnectError = (err: Error) => {
      clearTimeout(timer);
      this.#stats.connectFailures++;
      this.#logger.v(2).info('Backend connection failed; trying the next', {
        listener: this.name,
        backend: backendKey(backend),
        reason: err.message,
      });
      upstream.destroy();
      this.#try(conn, order, i + 1);
    };
    upstream.once('error', onConnectError);
    upstream.once('connect', () => {
      clearTimeout(timer);
      conn.connected = true;
      upstream.removeListener('error', onConnectError);
      upstream.on('error', () => {}); // reported through 'close'
      client.pipe(upstream);
      upstream.pipe(client);
      // A clean close is passed on as a FIN after the data; an error cuts the other side.
      client.once('close', (hadError) => (hadError ? upstream.destroy() : upstream.end()));
      upstream.once('close', (hadError) => (hadError ? client.destroy() : client.end()));
      client.resume();
    });
  }
}

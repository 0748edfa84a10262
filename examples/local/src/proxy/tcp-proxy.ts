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
 * - With PROXY protocol on, the header (v1 or v2) naming the client and the listener is sent to the backend
 *   before the client's first byte.
 * - {@link TcpProxy.close} stops accepting, lets open connections finish for the drain time (or until a signal
 *   aborts), then cuts them.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { canonicalIP } from '../ip.js';
import { BalancedListener, bindError, type ListenerOptions, type ListenerSettings } from './balancing.js';
import { type Backend, backendKey } from './health.js';
import { proxyProtocolHeader } from './proxy-protocol.js';

interface Conn {
  client: Socket;
  /** The backend connection (or the attempt in progress). */
  upstream?: Socket;
  /** True once the upstream connection is established and piped. */
  connected: boolean;
  /** The PROXY protocol header to send first, when on. */
  header?: Buffer;
}

export class TcpProxy extends BalancedListener {
  readonly protocol = 'TCP';
  readonly #server: Server;
  readonly #conns = new Set<Conn>();
  #closing: Promise<void> | undefined;

  private constructor(options: ListenerOptions, server: Server) {
    super(options);
    this.#server = server;
  }

  /**
   * Binds `address:port` and starts forwarding.
   * @throws Error naming the address and port when it cannot be bound (in use, or not an address of this host).
   */
  static async listen(options: ListenerOptions): Promise<TcpProxy> {
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: true });
    const proxy = new TcpProxy(options, server);
    server.on('connection', (socket) => proxy.#accept(socket));
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => reject(bindError(options.address, options.port, err));
      server.once('error', onError);
      server.listen({ host: options.address, port: options.port, exclusive: true }, () => {
        server.removeListener('error', onError);
        server.on('error', (err) => proxy.logger.error(err, 'Listener error', { listener: proxy.name }));
        resolve();
      });
    });
    return proxy;
  }

  /**
   * Stops accepting, waits up to `drainMs` for open connections to finish, then cuts the rest; when `signal`
   * aborts first, cuts them then. Resolves when the listener and every connection are closed. Idempotent: a
   * later call's `signal` can still cut a drain in progress.
   */
  close(drainMs = 0, signal?: AbortSignal): Promise<void> {
    const cut = () => {
      for (const c of this.#conns) {
        c.client.destroy();
        c.upstream?.destroy();
      }
    };
    if (signal?.aborted) cut();
    else signal?.addEventListener('abort', cut, { once: true });
    this.#closing ??= new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      if (drainMs <= 0 || this.#conns.size === 0) cut();
      else setTimeout(cut, drainMs).unref();
    });
    return this.#closing;
  }

  #accept(client: Socket): void {
    const remote = canonicalIP(client.remoteAddress ?? '') ?? '';
    if (remote === '') {
      client.destroy(); // gone before it was accepted
      return;
    }
    if (!this.allows(remote)) {
      this.counters.rejected++;
      this.logger.v(4).info('Connection refused by source ranges', { listener: this.name, client: remote });
      client.destroy();
      return;
    }
    const order = this.backendsFor(remote);
    if (order.length === 0) {
      this.counters.unserved++;
      this.logger.warn('No healthy backend; closing the connection', {
        listener: this.name,
        client: remote,
      });
      client.destroy();
      return;
    }
    const conn: Conn = { client, connected: false };
    const { proxyProtocol } = this.settings;
    // Taken now, while the client's addresses are known (a socket forgets them once closed).
    if (proxyProtocol) conn.header = this.#header(client, proxyProtocol);
    this.#conns.add(conn);
    this.counters.accepted++;
    this.counters.active++;
    client.on('error', () => {}); // reported through 'close'
    client.once('close', () => {
      this.#conns.delete(conn);
      this.counters.active--;
      if (!conn.connected) conn.upstream?.destroy(); // gave up while connecting
    });
    this.#try(conn, order, 0);
  }

  #try(conn: Conn, order: readonly Backend[], i: number): void {
    const { client } = conn;
    if (client.destroyed) return;
    const backend = order[i];
    if (backend === undefined) {
      this.counters.unserved++;
      this.logger.warn('Every backend failed; closing the connection', { listener: this.name });
      client.destroy();
      return;
    }
    const upstream = connect({ host: backend.host, port: backend.port, allowHalfOpen: true });
    conn.upstream = upstream;
    const timer = setTimeout(
      () => upstream.destroy(new Error(`connect timeout after ${this.settings.connectTimeoutMs}ms`)),
      this.settings.connectTimeoutMs,
    );
    const onConnectError = (err: Error) => {
      clearTimeout(timer);
      this.counters.connectFailures++;
      this.logger.v(2).info('Backend connection failed; trying the next', {
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
      if (conn.header) upstream.write(conn.header);
      client.pipe(upstream);
      upstream.pipe(client);
      // A clean close is passed on as a FIN after the data; an error cuts the other side.
      client.once('close', (hadError) => (hadError ? upstream.destroy() : upstream.end()));
      upstream.once('close', (hadError) => (hadError ? client.destroy() : client.end()));
      client.resume();
    });
  }

  /** The PROXY protocol header for `client`'s connection to this listener. */
  #header(client: Socket, version: NonNullable<ListenerSettings['proxyProtocol']>): Buffer {
    return proxyProtocolHeader(
      version,
      { address: client.remoteAddress ?? '', port: client.remotePort ?? 0 },
      { address: client.localAddress ?? this.address, port: client.localPort ?? this.port },
    );
  }
}

/**
 * One UDP listener of a load balancer (an allocated address and a Service port with `protocol: UDP`) that
 * forwards datagrams to a healthy backend (a node address and the port's node port), as the UDP proxy of
 * cloud-provider-kind's Envoy does (`envoy.filters.udp_listener.udp_proxy`, sessions keyed by the client's
 * address and port, idle timeout 60 s by default).
 *
 * - A **flow** is one client address and port. Its first datagram picks a backend (`round-robin`, or
 *   `source-hash` of the client address) and opens a socket connected to it; every later datagram of the
 *   client goes to the same backend, and the backend's replies go back to the client from the listener's
 *   address and port.
 * - A flow with no datagram either way for `idleTimeoutMs` is closed; the next datagram opens a new flow. So
 *   is a flow whose backend has turned unhealthy, at the client's next datagram.
 * - A flow whose backend answers with an error (ICMP port unreachable arrives as `ECONNREFUSED`) is closed, so
 *   the client's next datagram picks a backend again.
 * - Datagrams from outside the source ranges, or with no healthy backend, are dropped (and counted).
 * - {@link UdpProxy.close} closes the listener and every flow at once: UDP has no connection to drain.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { canonicalIP } from '../ip.js';
import { BalancedListener, bindError, type ListenerOptions, type ListenerSettings } from './balancing.js';
import { type Backend, backendKey } from './health.js';

interface Flow {
  readonly key: string;
  readonly client: RemoteInfo;
  readonly backend: Backend;
  readonly upstream: Socket;
  /** Datagrams waiting for the upstream socket to connect. */
  pending: Buffer[] | undefined;
  timer: NodeJS.Timeout | undefined;
}

export class UdpProxy extends BalancedListener {
  readonly protocol = 'UDP';
  readonly #socket: Socket;
  readonly #flows = new Map<string, Flow>();
  #closing: Promise<void> | undefined;

  private constructor(options: ListenerOptions, socket: Socket) {
    super(options);
    this.#socket = socket;
  }

  /**
   * Binds `address:port` (UDP) and starts forwarding.
   * @throws Error naming the address and port when it cannot be bound (in use, or not an address of this host).
   */
  static async listen(options: ListenerOptions): Promise<UdpProxy> {
    const v6 = options.address.includes(':');
    const socket = createSocket(v6 ? { type: 'udp6', ipv6Only: true } : { type: 'udp4' });
    const proxy = new UdpProxy(options, socket);
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => reject(bindError(options.address, options.port, err));
      socket.once('error', onError);
      socket.bind({ address: options.address, port: options.port, exclusive: true }, () => {
        socket.removeListener('error', onError);
        socket.on('error', (err) => proxy.logger.error(err, 'Listener error', { listener: proxy.name }));
        resolve();
      });
    });
    socket.on('message', (msg, rinfo) => proxy.#receive(msg, rinfo));
    return proxy;
  }

  /**
   * Changes backends, algorithm, idle timeout or source ranges in place. Flows to a backend no longer listed
   * are closed (their next datagram picks again); the others are kept.
   */
  override update(settings: Partial<ListenerSettings>): void {
    super.update(settings);
    if ('backends' in settings) {
      const kept = new Set(this.settings.backends.map(backendKey));
      for (const flow of [...this.#flows.values()]) if (!kept.has(backendKey(flow.backend))) this.#end(flow);
    }
  }

  /** Closes the listener and every flow. Resolves when the socket is closed. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      for (const flow of [...this.#flows.values()]) this.#end(flow);
      this.#socket.close(() => resolve());
    });
    return this.#closing;
  }

  #receive(msg: Buffer, rinfo: RemoteInfo): void {
    if (this.#closing) return;
    const client = canonicalIP(rinfo.address) ?? rinfo.address;
    const key = backendKey({ host: client, port: rinfo.port });
    let flow = this.#flows.get(key);
    if (flow && !this.isHealthy(flow.backend)) {
      this.#end(flow);
      flow = undefined;
    }
    if (!flow) {
      if (!this.allows(client)) {
        this.counters.rejected++;
        this.logger.v(4).info('Datagram dropped by source ranges', { listener: this.name, client });
        return;
      }
      const [backend] = this.backendsFor(client);
      if (!backend) {
        this.counters.unserved++;
        this.logger.v(2).info('No healthy backend; datagram dropped', { listener: this.name, client });
        return;
      }
      flow = this.#open(key, rinfo, backend);
    }
    this.#touch(flow);
    if (flow.pending) flow.pending.push(msg);
    else flow.upstream.send(msg);
  }

  #open(key: string, client: RemoteInfo, backend: Backend): Flow {
    const upstream = createSocket(backend.host.includes(':') ? 'udp6' : 'udp4');
    const flow: Flow = { key, client, backend, upstream, pending: [], timer: undefined };
    this.#flows.set(key, flow);
    this.counters.accepted++;
    this.counters.active++;
    upstream.on('message', (reply) => {
      if (this.#flows.get(key) !== flow) return;
      this.#touch(flow);
      this.#socket.send(reply, client.port, client.address);
    });
    upstream.on('error', (err) => {
      this.counters.connectFailures++;
      this.logger.v(2).info('Backend flow failed; closing it', {
        listener: this.name,
        backend: backendKey(backend),
        reason: err.message,
      });
      this.#end(flow);
    });
    upstream.connect(backend.port, backend.host, () => {
      const queued = flow.pending ?? [];
      flow.pending = undefined;
      if (this.#flows.get(key) !== flow) return;
      for (const msg of queued) upstream.send(msg);
    });
    return flow;
  }

  /** Restarts the idle timer of `flow`. */
  #touch(flow: Flow): void {
    clearTimeout(flow.timer);
    flow.timer = setTimeout(() => this.#end(flow), this.settings.idleTimeoutMs);
    flow.timer.unref();
  }

  #end(flow: Flow): void {
    if (this.#flows.get(flow.key) !== flow) return;
    this.#flows.delete(flow.key);
    this.counters.active--;
    clearTimeout(flow.timer);
    flow.upstream.close();
  }
}

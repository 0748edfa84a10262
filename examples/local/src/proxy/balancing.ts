/**
 * What the TCP and UDP listeners share ({@link BalancedListener}): the client filter
 * (`loadBalancerSourceRanges`), the backend choice (`round-robin` or `source-hash` over healthy backends), the
 * settings that change in place, the counters, and the bind error.
 */
import { BlockList, isIPv6 } from 'node:net';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import type { Algorithm, ProxyProtocolVersion } from '../annotations.js';
import { type Backend, backendKey } from './health.js';

/** Settings of a listener that may change while it runs. Durations in milliseconds. */
export interface ListenerSettings {
  readonly backends: readonly Backend[];
  readonly algorithm: Algorithm;
  /** TCP: time to connect to a backend before trying the next one. */
  readonly connectTimeoutMs: number;
  /** UDP: a flow (client address and port) with no datagram either way for this long is closed. */
  readonly idleTimeoutMs: number;
  /** Allowed client CIDRs; `undefined` allows every client. */
  readonly sourceRanges?: readonly string[];
  /** TCP: the PROXY protocol header sent to the backend before the client's bytes; `undefined` sends none. */
  readonly proxyProtocol?: ProxyProtocolVersion;
}

/** Options of a listener (`TcpProxy.listen`, `UdpProxy.listen`). */
export interface ListenerOptions extends ListenerSettings {
  readonly address: string;
  readonly port: number;
  /** Health of a backend; default: every backend is healthy. */
  readonly isHealthy?: (backend: Backend) => boolean;
  readonly logger?: Logger;
}

/** Counters of a listener. */
export interface ListenerStats {
  /** Connections (TCP) or flows (UDP) accepted and forwarded. */
  accepted: number;
  /** Connections or datagrams refused because the client is outside the source ranges. */
  rejected: number;
  /** Connections or datagrams dropped because no backend was healthy or every attempt failed. */
  unserved: number;
  /** Failed connection attempts (TCP) or flows ended by an error such as ICMP port unreachable (UDP). */
  connectFailures: number;
  /** Connections or flows open now. */
  active: number;
}

/** The source ranges as a lookup; `undefined` when every client is allowed. */
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

/**
 * The healthy backends in the order to try them: starting at the `source-hash` of `client`, or at `next`
 * (a round-robin counter) for `round-robin`, then wrapping around.
 */
function backendOrder(healthy: readonly Backend[], algorithm: Algorithm, client: string, next: number): Backend[] {
  if (healthy.length === 0) return [];
  const start = (algorithm === 'source-hash' ? hash(client) : next) % healthy.length;
  return [...healthy.slice(start), ...healthy.slice(0, start)];
}

/** The error of a listener that cannot bind, with a hint for the usual causes. */
export function bindError(address: string, port: number, err: NodeJS.ErrnoException): Error {
  const hint =
    err.code === 'EADDRNOTAVAIL'
      ? ' (not an address of this host: on Linux any 127.0.0.0/8 address works; add others with `ip addr add <ip>/32 dev lo`, or `ifconfig lo0 alias <ip>` on macOS)'
      : err.code === 'EADDRINUSE'
        ? ' (something else listens there)'
        : '';
  return new Error(`cannot listen on ${address}:${port}: ${err.code ?? err.message}${hint}`, { cause: err });
}

/** A listener on an address and port that balances clients over healthy backends. */
export abstract class BalancedListener {
  readonly address: string;
  readonly port: number;
  protected readonly logger: Logger;
  /** The counters, changed by the subclass. */
  protected readonly counters: ListenerStats = {
    accepted: 0,
    rejected: 0,
    unserved: 0,
    connectFailures: 0,
    active: 0,
  };
  #settings: ListenerSettings;
  #allowed: BlockList | undefined;
  readonly #isHealthy: (backend: Backend) => boolean;
  #next = 0;

  protected constructor(options: ListenerOptions) {
    this.address = options.address;
    this.port = options.port;
    this.#isHealthy = options.isHealthy ?? (() => true);
    this.logger = options.logger ?? createLogger('local-proxy');
    this.#settings = options;
    this.#allowed = blockList(options.sourceRanges);
  }

  /** `address:port` (IPv6 in brackets). */
  get name(): string {
    return backendKey({ host: this.address, port: this.port });
  }

  /** A copy of the counters. */
  get stats(): ListenerStats {
    return { ...this.counters };
  }

  /** The current settings. */
  get settings(): ListenerSettings {
    return this.#settings;
  }

  /** Changes settings in place; the listener keeps running. */
  update(settings: Partial<ListenerSettings>): void {
    this.#settings = { ...this.#settings, ...settings };
    if ('sourceRanges' in settings) this.#allowed = blockList(settings.sourceRanges);
  }

  /** True when `client` (a canonical address) is inside the source ranges. */
  protected allows(client: string): boolean {
    return this.#allowed === undefined || this.#allowed.check(client, client.includes(':') ? 'ipv6' : 'ipv4');
  }

  /** True when `backend` is healthy now. */
  protected isHealthy(backend: Backend): boolean {
    return this.#isHealthy(backend);
  }

  /** The healthy backends in the order to try them for a new connection or flow of `client`. */
  protected backendsFor(client: string): Backend[] {
    return backendOrder(
      this.#settings.backends.filter((b) => this.#isHealthy(b)),
      this.#settings.algorithm,
      client,
      this.#next++,
    );
  }
}

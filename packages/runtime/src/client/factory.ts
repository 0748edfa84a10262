/**
 * The client factory: every controller's API clients come from here, so they share one connection
 * pool, one QPS/burst limiter and the request metrics, and carry `User-Agent: <base>/<name>`.
 * Implements `ControllerClientBuilder` from `@ccm-kit/cloud-provider` (upstream
 * `k8s.io/controller-manager/pkg/clientbuilder.SimpleControllerClientBuilder`).
 */
import { createRequire } from 'node:module';
import type { ControllerClientBuilder } from '@ccm-kit/cloud-provider';
import type { Configuration, KubeConfig } from '@kubernetes/client-node';
import type { TransportResponse } from './transport-response.js';
import { clientNode } from './client-node-parts.js';
import type { KubeConfigLike } from './lean-kubeconfig.js';
import { type ApiClientSource, cachedApiClient, type RawApiConfig } from './raw-api.js';
import { type RawRequestOptions, RestTransport } from './transport.js';
import { typedConfiguration } from './typed-configuration.js';

/** Options of {@link createClientFactory}. */
export interface ClientFactoryOptions {
  /** Where to connect and how to authenticate (see `loadKubeConfig`; client-node's `KubeConfig` works too). */
  kubeConfig: KubeConfigLike;
  /** Shared client-side limit in requests per second (`--kube-api-qps`, default 20); negative disables. */
  qps?: number;
  /** Shared burst (`--kube-api-burst`, default 30). */
  burst?: number;
  /** Base user agent; each client sends `<userAgent>/<name>`. Default `ccm-kit/<version> (<os>/<arch>)`. */
  userAgent?: string;
  /**
   * Wire format (`--kube-api-content-type`). Only `application/json` is supported: client-node has no
   * protobuf codec. Other values throw.
   */
  contentType?: string;
  /** Per-request timeout in milliseconds (default 60 000); 0 disables. Watches are exempt. */
  timeoutMs?: number;
  /** Most connections to the API server (default unlimited). */
  maxConnections?: number;
}

function packageVersion(): string {
  try {
    const req = createRequire(import.meta.url);
    return (req('../../package.json') as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** The default base user agent, `ccm-kit/<version> (<os>/<arch>)`. */
export const defaultUserAgent = `ccm-kit/${packageVersion()} (${process.platform}/${process.arch})`;

// Set by ClientFactory's static block (declared first: the block runs as the class is defined); read by the
// internal accessors at the end of this file.
let transportOf: (f: ClientFactory) => RestTransport;
let rawConfigOf: (f: ClientFactory, name: string) => RawApiConfig;

/**
 * Builds the API clients of one process over one transport (one connection pool and one QPS/burst limiter, as
 * client-go's `rest.Config` with a shared `RateLimiter`); each named client gets its own user agent, `<base>/<name>`
 * (k8s.io/controller-manager `clientbuilder.SimpleControllerClientBuilder`). Create one with
 * {@link createClientFactory}.
 */
export class ClientFactory implements ControllerClientBuilder {
  /** The kubeconfig the clients authenticate with. */
  readonly kubeConfig: KubeConfigLike;
  /** The user agent before the client name, `ccm-kit/<version> (<os>/<arch>)` unless `userAgent` was given. */
  readonly baseUserAgent: string;
  /** The shared transport every client sends through (internal: `clientFactoryTransport`). */
  readonly #transport: RestTransport;
  readonly #clients = new Map<string, Map<unknown, unknown>>();
  /** What `cachedApiClient` builds this factory's clients from. */
  readonly #source: ApiClientSource = {
    rawConfig: (name) => this.#rawConfig(name),
    configuration: (name) => this.configuration(name),
  };

  static {
    transportOf = (f) => f.#transport;
    rawConfigOf = (f, name) => f.#rawConfig(name);
  }

  /** Prefer {@link createClientFactory}. */
  constructor(opts: ClientFactoryOptions) {
    if (typeof (opts.kubeConfig as Partial<KubeConfigLike> | undefined)?.getCurrentCluster !== 'function') {
      throw new TypeError('kubeConfig: a KubeConfig is required');
    }
    const contentType = opts.contentType ?? 'application/json';
    if (contentType !== 'application/json') {
      throw new Error(
        `contentType: only application/json is supported (client-node has no protobuf codec), got ${contentType}`,
      );
    }
    const qps = opts.qps ?? 20;
    const burst = opts.burst ?? 30;
    if (qps > 0 && !(Number.isInteger(burst) && burst >= 1))
      throw new RangeError(`burst must be an integer >= 1, got ${burst}`);
    this.kubeConfig = opts.kubeConfig;
    this.baseUserAgent = opts.userAgent ?? defaultUserAgent;
    this.#transport = new RestTransport(opts.kubeConfig, {
      qps,
      burst,
      timeoutMs: opts.timeoutMs ?? 60_000,
      accept: contentType,
      ...(opts.maxConnections ? { maxConnections: opts.maxConnections } : {}),
    });
  }

  /** `<base user agent>/<name>`. */
  userAgent(name: string): string {
    return name ? `${this.baseUserAgent}/${name}` : this.baseUserAgent;
  }

  /**
   * A copy of the KubeConfig as client-node's `KubeConfig` (same clusters, users and contexts; loads
   * client-node). The name is not encoded in it.
   */
  config(name: string): KubeConfig {
    checkName(name);
    const kc = new (clientNode().KubeConfig)();
    kc.loadFromOptions({
      clusters: [...this.kubeConfig.getClusters()],
      users: [...this.kubeConfig.getUsers()],
      contexts: [...this.kubeConfig.getContexts()],
      currentContext: this.kubeConfig.getCurrentContext(),
    });
    return kc;
  }

  /** A client-node `Configuration` for the named client, sending through the shared transport. */
  configuration(name: string): Configuration {
    return typedConfiguration(
      this.#transport.server,
      this.#transport.httpLibrary(this.userAgent(name)),
      this.kubeConfig as KubeConfig,
    );
  }

  /** How raw clients (`CoreV1Client`, `CoordinationV1Client`) of the named client send. */
  #rawConfig(name: string): RawApiConfig {
    const userAgent = this.userAgent(name);
    return {
      server: this.#transport.server,
      authenticate: (req) => this.kubeConfig.applySecurityAuthentication(req),
      send: (req) => this.#transport.send(req, userAgent),
    };
  }

  /**
   * A typed API client for the named client, e.g. `factory.client('node-controller', CoreV1Api)`, or
   * a raw one (`CoreV1Client`, `CoordinationV1Client`, which do not load client-node's generated API).
   * Clients are cached per name and class.
   */
  client<T>(name: string, api: new (...args: never[]) => T): T {
    checkName(name);
    return cachedApiClient(this.#clients, this.#source, name, api);
  }

  /**
   * A raw request below the API server's URL, e.g. `request('my-controller', '/api/v1/nodes', { query: { limit:
   * 500 } })`, with the named client's user agent and credentials, through the shared limiter and connections.
   * Resolves with the response whatever its status (read it with `json()`/`text()`, or `cancel()` it).
   * @throws the transport's error for a network failure or the per-request timeout.
   */
  request(name: string, path: string, opts?: RawRequestOptions): Promise<TransportResponse> {
    return this.#transport.request(path, this.userAgent(name), opts);
  }

  /** Closes the shared connections. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}

/** The transport a client factory's clients share (its write guard, connection count, server answers). Internal. */
export function clientFactoryTransport(f: ClientFactory): RestTransport {
  return transportOf(f);
}

/** How the factory's raw clients of client `name` send: its user agent, credentials and transport. Internal. */
export function clientFactoryRawConfig(f: ClientFactory, name: string): RawApiConfig {
  return rawConfigOf(f, name);
}

function checkName(name: string): void {
  if (typeof name !== 'string') throw new TypeError('name: a string is required');
}

/**
 * Creates the process' client factory.
 * @throws Error/RangeError naming `kubeConfig`, `contentType`, `qps`, `burst` or `timeoutMs` when invalid.
 */
export function createClientFactory(opts: ClientFactoryOptions): ClientFactory {
  return new ClientFactory(opts);
}

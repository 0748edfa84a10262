/**
 * `--use-service-account-credentials`: each controller talks to the API server as its own service account in
 * `kube-system` (`node-controller`, `service-controller`, `route-controller`, …), with short-lived tokens from
 * the TokenRequest API. Follows k8s.io/controller-manager `clientbuilder.DynamicControllerClientBuilder`
 * (`getOrCreateServiceAccount`, 1 h tokens, refreshed before they expire) built on
 * `rest.AnonymousClientConfig`: the manager's own credentials — a client certificate included — are **not**
 * sent with these clients, only the service account's bearer token.
 */
import type { ControllerClientBuilder } from '@ccm-kit/cloud-provider';
import { type Logger } from '@ccm-kit/runtime';
import { type ClientFactory, isAlreadyExists, isNotFound, type KubeConfigLike } from '@ccm-kit/runtime/client';
import {
  cachedApiClient,
  clientFactoryRawConfig,
  clientFactoryTransport,
  clientNode,
  type RawApiConfig,
  typedConfiguration,
} from '@ccm-kit/runtime/internal';
// client-node's generated API is loaded (clientNode()) only when these clients are used.
import type { Configuration, KubeConfig, RequestContext } from '@kubernetes/client-node';

/** Token lifetime requested (upstream `defaultExpirationSeconds`). */
export const TOKEN_EXPIRATION_SECONDS = 3600;
/** A token is replaced once this fraction of its lifetime has passed. */
const REFRESH_AT_FRACTION = 0.8;

interface CachedToken {
  token: string;
  /** Epoch ms after which a new token is requested. */
  refreshAt: number;
}

/** Options of {@link ServiceAccountClientBuilder}. */
export interface ServiceAccountClientBuilderOptions {
  /** The manager's own clients: they read/create the service accounts and request their tokens. */
  root: ClientFactory;
  /** Clients without the manager's credentials (see `anonymousKubeConfig`); requests carry the SA token only. */
  anonymous: ClientFactory;
  /** Namespace of the service accounts (default `kube-system`). */
  namespace?: string;
  logger: Logger;
  /** Clock in epoch ms (tests). */
  now?: () => number;
}

/**
 * A copy of `kc` keeping the cluster (server, CA, TLS settings) but no user credentials: no client
 * certificate, token or exec plugin (client-go `rest.AnonymousClientConfig`).
 */
export function anonymousKubeConfig(kc: KubeConfigLike): KubeConfig {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const out = new (clientNode().KubeConfig)();
  out.loadFromOptions({
    clusters: [cluster],
    users: [{ name: 'anonymous' }],
    contexts: [{ name: 'anonymous', cluster: cluster.name, user: 'anonymous' }],
    currentContext: 'anonymous',
  });
  return out;
}

/** Per-controller service-account clients; implements `ControllerClientBuilder`. */
export class ServiceAccountClientBuilder implements ControllerClientBuilder {
  readonly namespace: string;
  readonly #o: ServiceAccountClientBuilderOptions;
  readonly #now: () => number;
  readonly #tokens = new Map<string, CachedToken>();
  readonly #pending = new Map<string, Promise<string>>();
  readonly #clients = new Map<string, Map<unknown, unknown>>();

  constructor(opts: ServiceAccountClientBuilderOptions) {
    this.#o = opts;
    this.namespace = opts.namespace ?? 'kube-system';
    this.#now = opts.now ?? Date.now;
  }

  /**
   * The current token of service account `name`, getting (or creating) the account and requesting a new
   * token when none is cached or the cached one is past 80 % of its lifetime. Concurrent callers share one request.
   * @throws the API error of the get/create or the TokenRequest.
   */
  async token(name: string): Promise<string> {
    const cached = this.#tokens.get(name);
    if (cached && this.#now() < cached.refreshAt) return cached.token;
    let p = this.#pending.get(name);
    if (!p) {
      p = this.#requestToken(name).finally(() => this.#pending.delete(name));
      this.#pending.set(name, p);
    }
    return p;
  }

  async #requestToken(name: string): Promise<string> {
    const core = this.#o.root.client('cloud-controller-manager', clientNode().CoreV1Api);
    const ns = this.namespace;
    try {
      await core.readNamespacedServiceAccount({ name, namespace: ns });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name, namespace: ns } } });
        this.#o.logger.info('Created service account for controller credentials', { serviceAccount: `${ns}/${name}` });
      } catch (createErr) {
        if (!isAlreadyExists(createErr)) throw createErr;
      }
    }
    const issued = this.#now();
    const tr = await core.createNamespacedServiceAccountToken({
      name,
      namespace: ns,
      body: { spec: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, audiences: [] } },
    });
    const token = tr.status?.token;
    if (!token) throw new Error(`TokenRequest for service account ${ns}/${name} returned no token`);
    const expires = tr.status?.expirationTimestamp
      ? new Date(tr.status.expirationTimestamp).getTime()
      : issued + TOKEN_EXPIRATION_SECONDS * 1000;
    this.#tokens.set(name, { token, refreshAt: issued + (expires - issued) * REFRESH_AT_FRACTION });
    return token;
  }

  /** A client-node `Configuration` whose requests carry `Authorization: Bearer <token of name>`. */
  configuration(name: string): Configuration {
    const anonymous = this.#o.anonymous;
    const transport = clientFactoryTransport(anonymous);
    return typedConfiguration(transport.server, transport.httpLibrary(anonymous.userAgent(name)), {
      applySecurityAuthentication: async (ctx: RequestContext) => {
        ctx.setHeaderParam('Authorization', `Bearer ${await this.token(name)}`);
      },
    });
  }

  /** How raw clients (`CoreV1Client`, ...) acting as service account `name` send. */
  rawConfig(name: string): RawApiConfig {
    return {
      ...clientFactoryRawConfig(this.#o.anonymous, name),
      authenticate: async (req) => req.setHeaderParam('Authorization', `Bearer ${await this.token(name)}`),
    };
  }

  /** A typed (or raw) API client acting as service account `name` (cached per name and class). */
  client<T>(name: string, api: new (...args: never[]) => T): T {
    if (!name) throw new Error('client name must not be empty');
    return cachedApiClient(this.#clients, this, name, api);
  }

  /**
   * A KubeConfig acting as service account `name` with its **current** token (it is not refreshed: use
   * {@link client} for long-lived use).
   * @throws Error when no token has been obtained for `name` yet (call `await token(name)` first).
   */
  config(name: string): KubeConfig {
    const cached = this.#tokens.get(name);
    if (!cached) {
      throw new Error(
        `no service-account token for ${JSON.stringify(name)} yet (--use-service-account-credentials): await token(name) first, or use client(name, Api)`,
      );
    }
    const base = anonymousKubeConfig(this.#o.anonymous.kubeConfig);
    const cluster = base.getCurrentCluster()!;
    const kc = new (clientNode().KubeConfig)();
    kc.loadFromOptions({
      clusters: [cluster],
      users: [{ name, token: cached.token }],
      contexts: [{ name, cluster: cluster.name, user: name }],
      currentContext: name,
    });
    return kc;
  }
}

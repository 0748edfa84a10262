/**
 * The mockcloud provider: InstancesV2, LoadBalancer and Routes over the mockcloud REST API.
 *
 * Two-phase start, as upstream: the factory (every replica, before leader election) parses the config,
 * builds the API client and checks the token with one call; `initialize` (the leader only) takes a
 * Kubernetes client for writing the load-balancer ID back to Services.
 */
import {
  type CloudProvider,
  type ControllerClientBuilder,
  type InstancesV2,
  type LoadBalancer,
  registerCloudProvider,
  type Routes,
  type ServiceStatusClient,
  serviceStatusClientFromCoreV1Api,
} from '@ccm-kit/cloud-provider';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import { fileCredential } from '@ccm-kit/runtime/guard';
import { CoreV1Api } from '@kubernetes/client-node';
import { isAuthError, MockCloudClient, redactURL } from '../client/index.js';
import { formatConfig, type MockCloudConfig, parseConfig } from './config.js';
import { MockCloudInstances } from './instances.js';
import { MockCloudLoadBalancers } from './load-balancer.js';
import { PROVIDER_CLIENT_NAME, PROVIDER_NAME } from './names.js';
import { MockCloudRoutes } from './routes.js';
import { ServerCache } from './server-cache.js';

/** Options of {@link MockCloudProvider} beyond its config, mostly for tests. */
export interface MockCloudProviderOptions {
  /** The API client; default one built from the config. */
  client?: MockCloudClient;
  /** The Service patch client; default one from `initialize`'s client builder. */
  serviceClient?: ServiceStatusClient;
  logger?: Logger;
  /** The clock of the server cache, in epoch ms; default `Date.now`. */
  now?: () => number;
}

/** Builds the API client a config describes. */
export function clientFromConfig(config: MockCloudConfig): MockCloudClient {
  return new MockCloudClient({
    apiURL: config.apiURL,
    token: config.tokenFile !== undefined ? fileCredential(config.tokenFile) : (config.token ?? ''),
    retry: config.retry,
    requestTimeoutMs: config.requestTimeoutMs,
    concurrency: config.concurrency,
  });
}

/** The provider. */
export class MockCloudProvider implements CloudProvider {
  readonly config: MockCloudConfig;
  readonly client: MockCloudClient;
  readonly servers: ServerCache;
  readonly logger: Logger;
  readonly #instances: MockCloudInstances;
  readonly #loadBalancers: MockCloudLoadBalancers;
  readonly #routes: MockCloudRoutes;
  #serviceClient: ServiceStatusClient | undefined;

  constructor(config: MockCloudConfig, options: MockCloudProviderOptions = {}) {
    this.config = config;
    this.logger = options.logger ?? createLogger(PROVIDER_NAME);
    this.client = options.client ?? clientFromConfig(config);
    this.servers = new ServerCache(this.client, {
      maxAgeMs: config.instancesCacheMaxAgeMs,
      now: options.now,
    });
    this.#serviceClient = options.serviceClient;
    this.#instances = new MockCloudInstances(this.client, this.servers);
    this.#loadBalancers = new MockCloudLoadBalancers({
      client: this.client,
      cache: this.servers,
      clusterID: config.clusterID,
      provisioningRetryMs: config.loadBalancer.provisioningRetryMs,
      healthCheckIntervalSeconds: config.loadBalancer.healthCheckIntervalSeconds,
      groupBy: config.loadBalancer.groupBy,
      serviceClient: () => this.#serviceClient,
      logger: this.logger.with({}, 'load-balancer'),
    });
    this.#routes = new MockCloudRoutes({
      client: this.client,
      cache: this.servers,
      clusterID: config.clusterID,
      logger: this.logger.with({}, 'routes'),
    });
  }

  /** Leader only: takes the Kubernetes client used to record load-balancer IDs on Services. */
  initialize(clientBuilder: ControllerClientBuilder): void {
    this.#serviceClient ??= serviceStatusClientFromCoreV1Api(clientBuilder.client(PROVIDER_CLIENT_NAME, CoreV1Api));
  }

  /**
   * Checks that the API accepts the token with one cheap call.
   * @throws Error with a clear message on 401/403 (a wrong or under-scoped token), or the API error.
   */
  async verifyCredentials(signal?: AbortSignal): Promise<void> {
    try {
      await this.client.listServers({ name: '-ccm-credentials-check-', signal });
    } catch (err) {
      if (isAuthError(err)) {
        throw new Error(
          `mockcloud: the API at ${redactURL(this.config.apiURL)} rejected the token: ${(err as Error).message}`,
          {
            cause: err,
          },
        );
      }
      throw err;
    }
  }

  providerName(): string {
    return PROVIDER_NAME;
  }

  /** Always true: `clusterID` is required by the config. */
  hasClusterID(): boolean {
    return this.config.clusterID !== '';
  }

  instancesV2(): InstancesV2 {
    return this.#instances;
  }

  loadBalancer(): LoadBalancer {
    return this.#loadBalancers;
  }

  /** The VPC route table; the node-route controller uses it with `--configure-cloud-routes`. */
  routes(): Routes {
    return this.#routes;
  }
}

/**
 * The factory registered under `mockcloud`: parses the config (file text and environment), logs it with
 * the token masked, and checks the token unless `verifyCredentialsOnStart: false`.
 * @throws ConfigError listing every config problem; Error when the token is rejected.
 */
export async function createMockCloudProvider(
  configText: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  options: MockCloudProviderOptions = {},
): Promise<MockCloudProvider> {
  const config = parseConfig(configText, env);
  const provider = new MockCloudProvider(config, options);
  provider.logger.info('mockcloud configuration', { config: JSON.parse(formatConfig(config)) });
  if (config.verifyCredentialsOnStart) await provider.verifyCredentials();
  return provider;
}

/** Registers the provider under `mockcloud` (use `--cloud-provider=mockcloud`). */
export function register(): void {
  registerCloudProvider(PROVIDER_NAME, (text) => createMockCloudProvider(text));
}

/**
 * The provider object and its registration (rancher/rancher.go `CloudProvider`, `init`, `newRancherCloud`):
 * Instances (the legacy facet) and LoadBalancer over the Cattle API. No Zones: the original's `GetZone` only
 * answered "unimplemented", and a Zones facet that cannot answer would stop the cloud-node controller from
 * initializing any Node (upstream `getInstanceMetadata` fails on a zone error), so the facet is absent and Nodes
 * get no zone or region labels. No Routes, no Clusters, as the original.
 */
import { type CloudProvider, registerCloudProvider } from '@ccm-kit/cloud-provider';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import { CattleClient, type CattleEndpoint } from '../cattle/client.js';
import { describeEndpoint, readRancherConfig } from './config.js';
import { HostDirectory, PROVIDER_NAME } from './hosts.js';
import { RancherInstances } from './instances.js';
import { RancherLoadBalancer } from './load-balancer.js';

/** Options of {@link RancherCloud}, beyond the endpoint. */
export interface RancherCloudOptions {
  logger?: Logger;
  /** How long a host found by name may answer while the API fails, ms (default 600 000). */
  hostCacheTtlMs?: number;
  /** The `RetryError` delay while Rancher works, ms (default 2000, the original's poll interval). */
  retryAfterMs?: number;
  /** Each Cattle request's limit, ms (default 10 000). */
  requestTimeoutMs?: number;
}

/** The Rancher provider. */
export class RancherCloud implements CloudProvider {
  readonly #instances: RancherInstances;
  readonly #loadBalancer: RancherLoadBalancer;

  constructor(endpoint: CattleEndpoint, options: RancherCloudOptions = {}) {
    const log = options.logger ?? createLogger(PROVIDER_NAME);
    const api = new CattleClient(endpoint, { requestTimeoutMs: options.requestTimeoutMs });
    const hosts = new HostDirectory(api, log, { cacheTtlMs: options.hostCacheTtlMs });
    this.#instances = new RancherInstances(hosts);
    this.#loadBalancer = new RancherLoadBalancer(api, hosts, log, { retryAfterMs: options.retryAfterMs });
    log.info('Using the Cattle API', describeEndpoint(endpoint));
  }

  providerName(): string {
    return PROVIDER_NAME;
  }
  /** Rancher's balancers are named by Service UID alone; there is no cluster tag to require. */
  hasClusterID(): boolean {
    return true;
  }
  instances(): RancherInstances {
    return this.#instances;
  }
  loadBalancer(): RancherLoadBalancer {
    return this.#loadBalancer;
  }
}

/**
 * Registers `rancher` with ccm-kit's provider registry: `initCloudProvider('rancher', configFile)` then builds a
 * {@link RancherCloud} from the environment and the file (see `readRancherConfig`).
 */
export function register(): void {
  registerCloudProvider(PROVIDER_NAME, (cloudConfig) => new RancherCloud(readRancherConfig(cloudConfig)));
}

/**
 * The provider of the embedded example: a machine table and a pool of load-balancer addresses read from the
 * `--cloud-config` JSON file, registered as `embedded` (a vendor registers its real provider the same way).
 */
import {
  type CloudProvider,
  defaultLoadBalancerName,
  type InstanceMetadata,
  InstanceNotFoundError,
  type InstancesV2,
  type LoadBalancer,
  registerCloudProvider,
} from '@ccm-kit/cloud-provider';
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';

/** The provider name (`initCloudProvider('embedded', …)`) and providerID scheme. */
export const PROVIDER_NAME = 'embedded';

/** The cloud-config file: `{ "machines": [{ "name", "id", "zone", "address" }], "loadBalancerAddresses": [ip, …] }`. */
export interface EmbeddedConfig {
  machines: { name: string; id: string; zone: string; address: string }[];
  loadBalancerAddresses: string[];
}

/** @throws Error naming the field when the text is missing or not the shape above. */
export function parseEmbeddedConfig(text: string | undefined): EmbeddedConfig {
  if (text === undefined) throw new Error(`${PROVIDER_NAME}: a cloud-config file is required`);
  const c = JSON.parse(text) as Partial<EmbeddedConfig>;
  if (!Array.isArray(c.machines)) throw new Error(`${PROVIDER_NAME} cloud-config: "machines" must be a list`);
  if (!Array.isArray(c.loadBalancerAddresses))
    throw new Error(`${PROVIDER_NAME} cloud-config: "loadBalancerAddresses" must be a list of IPs`);
  return { machines: c.machines, loadBalancerAddresses: c.loadBalancerAddresses };
}

class EmbeddedCloud implements CloudProvider, InstancesV2, LoadBalancer {
  readonly #assigned = new Map<string, string>();
  constructor(private readonly config: EmbeddedConfig) {}

  providerName(): string {
    return PROVIDER_NAME;
  }
  hasClusterID(): boolean {
    return true;
  }
  instancesV2(): InstancesV2 {
    return this;
  }
  loadBalancer(): LoadBalancer {
    return this;
  }

  #machine(node: V1Node) {
    const pid = node.spec?.providerID;
    return this.config.machines.find((m) =>
      pid ? `${PROVIDER_NAME}://${m.id}` === pid : m.name === node.metadata?.name,
    );
  }
  async instanceExists(node: V1Node): Promise<boolean> {
    return this.#machine(node) !== undefined;
  }
  async instanceShutdown(): Promise<boolean> {
    return false;
  }
  async instanceMetadata(node: V1Node): Promise<InstanceMetadata> {
    const m = this.#machine(node);
    if (!m) throw new InstanceNotFoundError(`no machine for node ${node.metadata?.name}`);
    return {
      providerID: `${PROVIDER_NAME}://${m.id}`,
      instanceType: 'standard',
      zone: m.zone,
      region: 'local',
      nodeAddresses: [{ type: 'InternalIP', address: m.address }],
    };
  }

  getLoadBalancerName(_clusterName: string, service: V1Service): string {
    return defaultLoadBalancerName(service);
  }
  async getLoadBalancer(clusterName: string, service: V1Service): Promise<V1LoadBalancerStatus | undefined> {
    const ip = this.#assigned.get(this.getLoadBalancerName(clusterName, service));
    return ip ? { ingress: [{ ip }] } : undefined;
  }
  async ensureLoadBalancer(clusterName: string, service: V1Service): Promise<V1LoadBalancerStatus> {
    const name = this.getLoadBalancerName(clusterName, service);
    let ip = this.#assigned.get(name);
    if (!ip) {
      const used = new Set(this.#assigned.values());
      ip = this.config.loadBalancerAddresses.find((a) => !used.has(a));
      if (!ip) throw new Error(`${PROVIDER_NAME}: no load-balancer address left`);
      this.#assigned.set(name, ip);
    }
    return { ingress: [{ ip }] };
  }
  async updateLoadBalancer(): Promise<void> {}
  async ensureLoadBalancerDeleted(clusterName: string, service: V1Service): Promise<void> {
    this.#assigned.delete(this.getLoadBalancerName(clusterName, service));
  }
}

/** Registers `embedded` with ccm-kit's provider registry. */
export function register(): void {
  registerCloudProvider(PROVIDER_NAME, (config) => new EmbeddedCloud(parseEmbeddedConfig(config)));
}

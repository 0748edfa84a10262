/**
 * What a vendor writes into the scaffolded src/provider.ts in the vendor-flow test: a tiny in-memory
 * cloud whose machines are the Nodes `ccm-kit dev` registers, and load balancers that hand out addresses.
 */
export const IN_MEMORY_PROVIDER = `
import {
  type CloudProvider,
  defaultLoadBalancerName,
  type InstanceMetadata,
  type InstancesV2,
  type LoadBalancer,
  registerCloudProvider,
} from '@ccm-kit/cloud-provider';
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';
import { type CloudConfig, parseCloudConfig } from './config.js';

export const PROVIDER_NAME = 'acme';
const machine = (node: V1Node) => node.spec?.providerID?.replace('acme://', '') ?? node.metadata?.name ?? '';

export class AcmeCloud implements CloudProvider, InstancesV2, LoadBalancer {
  readonly #lbs = new Map<string, string>();
  constructor(readonly config: CloudConfig) {}
  providerName(): string { return PROVIDER_NAME; }
  hasClusterID(): boolean { return true; }
  instancesV2(): InstancesV2 { return this; }
  loadBalancer(): LoadBalancer { return this; }
  async instanceExists(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    return machine(node).startsWith('node-') || machine(node).startsWith('dev-node-');
  }
  async instanceShutdown(_node: V1Node, signal?: AbortSignal): Promise<boolean> { signal?.throwIfAborted(); return false; }
  async instanceMetadata(node: V1Node, signal?: AbortSignal): Promise<InstanceMetadata | undefined> {
    signal?.throwIfAborted();
    if (!(await this.instanceExists(node))) throw new Error('no such machine');
    const ip = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '10.0.0.1';
    return { providerID: 'acme://' + machine(node), instanceType: 'a1.small', zone: this.config.region + 'a', region: this.config.region,
      nodeAddresses: [{ type: 'InternalIP', address: ip }, { type: 'Hostname', address: node.metadata?.name ?? '' }] };
  }
  async getLoadBalancer(cluster: string, svc: V1Service, signal?: AbortSignal): Promise<V1LoadBalancerStatus | undefined> {
    signal?.throwIfAborted();
    const ip = this.#lbs.get(this.getLoadBalancerName(cluster, svc));
    return ip ? { ingress: [{ ip }] } : undefined;
  }
  getLoadBalancerName(_cluster: string, svc: V1Service): string { return defaultLoadBalancerName(svc); }
  async ensureLoadBalancer(cluster: string, svc: V1Service, _nodes: V1Node[], signal?: AbortSignal): Promise<V1LoadBalancerStatus> {
    signal?.throwIfAborted();
    const name = this.getLoadBalancerName(cluster, svc);
    if (!this.#lbs.has(name)) this.#lbs.set(name, '203.0.113.' + (10 + this.#lbs.size));
    return { ingress: [{ ip: this.#lbs.get(name)! }] };
  }
  async updateLoadBalancer(_c: string, _s: V1Service, _n: V1Node[], signal?: AbortSignal): Promise<void> { signal?.throwIfAborted(); }
  async ensureLoadBalancerDeleted(cluster: string, svc: V1Service, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.#lbs.delete(this.getLoadBalancerName(cluster, svc));
  }
}

export function register(): void {
  registerCloudProvider(PROVIDER_NAME, async (config) => new AcmeCloud(parseCloudConfig(config)));
}
`;

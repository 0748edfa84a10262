/**
 * The minimal provider: machines from a static table (the `--cloud-config` YAML file) and a load
 * balancer that hands out addresses from a list. Copy this file to start your own provider.
 *
 * cloud-config example:
 *   machines:
 *     - { name: node-a, id: a1, zone: zone-1, region: region-1, type: small, address: 10.0.0.11 }
 *   loadBalancerAddresses: [203.0.113.10, 203.0.113.11]
 */
import {
  type CloudProvider,
  type InstanceMetadata,
  type InstancesV2,
  type LoadBalancer,
  registerCloudProvider,
} from '@ccm-kit/cloud-provider';
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';
import { parse } from 'yaml';

/** One machine of the static table. */
export interface Machine {
  name: string;
  id: string;
  zone?: string;
  region?: string;
  type?: string;
  address: string;
}

/** The `--cloud-config` file's shape. */
export interface MinimalConfig {
  machines: Machine[];
  loadBalancerAddresses: string[];
}

/** Parses and validates the cloud-config; errors name the field to fix. */
export function parseConfig(text: string | undefined): MinimalConfig {
  if (!text)
    throw new Error('minimal: --cloud-config is required (a YAML file with machines and loadBalancerAddresses)');
  const raw = (parse(text) ?? {}) as Partial<MinimalConfig>;
  if (!Array.isArray(raw.machines)) throw new Error('minimal: cloud-config field "machines" must be a list');
  for (const [i, m] of raw.machines.entries()) {
    if (!m?.name || !m.id || !m.address) throw new Error(`minimal: machines[${i}] needs name, id and address`);
  }
  return { machines: raw.machines, loadBalancerAddresses: raw.loadBalancerAddresses ?? [] };
}

const PREFIX = 'minimal://';

/** The provider. InstancesV2 answers from the table; the load balancer only hands out addresses. */
export class MinimalCloud implements CloudProvider, InstancesV2, LoadBalancer {
  readonly #allocated = new Map<string, string>(); // service UID -> address

  constructor(readonly config: MinimalConfig) {}

  providerName(): string {
    return 'minimal';
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

  #machine(node: V1Node): Machine | undefined {
    const pid = node.spec?.providerID;
    if (pid) return this.config.machines.find((m) => PREFIX + m.id === pid);
    return this.config.machines.find((m) => m.name === node.metadata?.name);
  }

  // Every cloud call takes an AbortSignal last: stop (and reject) when the controller gives up.
  async instanceExists(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    return this.#machine(node) !== undefined;
  }
  async instanceShutdown(_node: V1Node, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    return false;
  }
  async instanceMetadata(node: V1Node, signal?: AbortSignal): Promise<InstanceMetadata | undefined> {
    signal?.throwIfAborted();
    const m = this.#machine(node);
    if (!m) return undefined;
    return {
      providerID: PREFIX + m.id,
      instanceType: m.type,
      zone: m.zone,
      region: m.region,
      nodeAddresses: [
        { type: 'InternalIP', address: m.address },
        { type: 'Hostname', address: m.name },
      ],
    };
  }

  async getLoadBalancer(
    _cluster: string,
    svc: V1Service,
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus | undefined> {
    signal?.throwIfAborted();
    const ip = this.#allocated.get(svc.metadata?.uid ?? '');
    return ip ? { ingress: [{ ip }] } : undefined;
  }
  getLoadBalancerName(_cluster: string, svc: V1Service): string {
    return `a${(svc.metadata?.uid ?? '').replaceAll('-', '')}`.slice(0, 32);
  }
  async ensureLoadBalancer(
    _cluster: string,
    svc: V1Service,
    _nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus> {
    signal?.throwIfAborted();
    const uid = svc.metadata?.uid ?? '';
    let ip = this.#allocated.get(uid);
    if (!ip) {
      const used = new Set(this.#allocated.values());
      ip = this.config.loadBalancerAddresses.find((a) => !used.has(a));
      if (!ip) throw new Error('minimal: no free load-balancer address; add more to loadBalancerAddresses');
      this.#allocated.set(uid, ip);
    }
    return { ingress: [{ ip }] };
  }
  async updateLoadBalancer(_cluster: string, _svc: V1Service, _nodes: V1Node[], signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
  }
  async ensureLoadBalancerDeleted(_cluster: string, svc: V1Service, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.#allocated.delete(svc.metadata?.uid ?? '');
  }
}

/** Registers the provider under the name `minimal` (use `--cloud-provider=minimal`). */
export function register(): void {
  registerCloudProvider('minimal', (config) => new MinimalCloud(parseConfig(config)));
}

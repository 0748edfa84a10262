/**
 * The legacy Instances facet (rancher/rancher.go "Instances Functions"), by Node name as the original, with the
 * by-providerID methods today's controllers call (the original predates them or left them unimplemented): a
 * host's addresses are each of its IPs as `ExternalIP` and its host name as `Hostname`; its instance ID is the
 * host's UUID; its instance type is `rancher`.
 */
import { InstanceNotFoundError, type Instances, NotImplementedError } from '@ccm-kit/cloud-provider';
import type { V1NodeAddress } from '@kubernetes/client-node';
import { type HostDirectory, PROVIDER_NAME, type RancherHost } from './hosts.js';

/** The addresses of a host: each IP as ExternalIP, then the host name as Hostname. */
export function hostAddresses({ host, addresses }: RancherHost): V1NodeAddress[] {
  return [
    ...addresses.map((address) => ({ type: 'ExternalIP', address })),
    { type: 'Hostname', address: host.hostname },
  ];
}

/** Instances over a {@link HostDirectory}. Every lookup error is the directory's (see there). */
export class RancherInstances implements Instances {
  constructor(private readonly hosts: HostDirectory) {}

  async nodeAddresses(nodeName: string, signal?: AbortSignal): Promise<V1NodeAddress[]> {
    return hostAddresses(await this.hosts.byName(nodeName, signal));
  }
  async nodeAddressesByProviderID(providerID: string, signal?: AbortSignal): Promise<V1NodeAddress[]> {
    return hostAddresses(await this.hosts.byProviderID(providerID, signal));
  }
  /** The host's UUID; the cloud-node controller makes the providerID `rancher://<uuid>` of it. */
  async instanceID(nodeName: string, signal?: AbortSignal): Promise<string> {
    return (await this.hosts.byName(nodeName, signal)).host.uuid;
  }
  async instanceType(nodeName: string, signal?: AbortSignal): Promise<string> {
    await this.hosts.byName(nodeName, signal);
    return PROVIDER_NAME;
  }
  async instanceTypeByProviderID(providerID: string, signal?: AbortSignal): Promise<string> {
    await this.hosts.byProviderID(providerID, signal);
    return PROVIDER_NAME;
  }
  /** @throws NotImplementedError (as the original). */
  async addSSHKeyToAllInstances(): Promise<void> {
    throw new NotImplementedError('unimplemented');
  }
  async currentNodeName(hostname: string): Promise<string> {
    return hostname;
  }
  /** False only when the API answers that no host with addresses has this UUID. */
  async instanceExistsByProviderID(providerID: string, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.hosts.byProviderID(providerID, signal);
      return true;
    } catch (err) {
      if (err instanceof InstanceNotFoundError) return false;
      throw err;
    }
  }
  /** @throws NotImplementedError: Rancher's host states say nothing the original used (read as "not shut down"). */
  async instanceShutdownByProviderID(): Promise<boolean> {
    throw new NotImplementedError('unimplemented');
  }
}

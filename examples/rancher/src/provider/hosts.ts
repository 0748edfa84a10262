/**
 * Finding the Rancher host of a Node (rancher/rancher.go `getHostByName`, `hostGetOrFetchFromCache`): by the
 * Node's name, matched against each host's `hostname`, or by providerID (`rancher://<host uuid>`). A host
 * without IP addresses counts as not found. Lookups by name fall back to a short-lived cache of earlier answers
 * when the API fails, as the original's TTL store did; "not found" evicts the cached host.
 */
import { InstanceNotFoundError } from '@ccm-kit/cloud-provider';
import type { Logger } from '@ccm-kit/runtime';
import type { CattleClient } from '../cattle/client.js';
import type { Host, IpAddress } from '../cattle/types.js';

/** The provider's name and providerID scheme. */
export const PROVIDER_NAME = 'rancher';

/** A host with the addresses of its `ipAddresses` link (at least one). */
export interface RancherHost {
  host: Host;
  addresses: string[];
}

/**
 * True when a Rancher host name and a Node name name the same machine: compared whole, ignoring case, unless one
 * is a fully qualified name (has a dot) and the other is not — then only the first label of the qualified one
 * counts (`node-1.example.com` matches `NODE-1`).
 */
export function hostNameMatches(rancherHostname: string, nodeName: string): boolean {
  const rancherQualified = rancherHostname.includes('.');
  const nodeQualified = nodeName.includes('.');
  const r = rancherQualified && !nodeQualified ? rancherHostname.split('.')[0]! : rancherHostname;
  const n = nodeQualified && !rancherQualified ? nodeName.split('.')[0]! : nodeName;
  return r.toLowerCase() === n.toLowerCase();
}

/** The host UUID in a providerID. @throws Error naming the providerID when it is not `rancher://<uuid>`. */
export function hostUUIDOf(providerID: string): string {
  const prefix = `${PROVIDER_NAME}://`;
  const uuid = providerID.startsWith(prefix) ? providerID.slice(prefix.length) : '';
  if (!uuid || uuid.includes('/')) {
    throw new Error(`providerID ${JSON.stringify(providerID)} is not a Rancher host (${prefix}<host uuid>)`);
  }
  return uuid;
}

/** Options of {@link HostDirectory}. */
export interface HostDirectoryOptions {
  /** How long a host found by name may answer for it while the API fails, in ms (default 600 000). */
  cacheTtlMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

/** Hosts by Node name or providerID. */
export class HostDirectory {
  readonly #cache = new Map<string, { value: RancherHost; expires: number }>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(
    private readonly api: CattleClient,
    private readonly log: Logger,
    options: HostDirectoryOptions = {},
  ) {
    this.#ttlMs = options.cacheTtlMs ?? 600_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The host of the Node named `nodeName`. While the API fails, a host found in the last `cacheTtlMs` answers.
   * @throws InstanceNotFoundError when no host matches or the one that does has no IP address.
   * @throws Error `multiple instances found for name: <name>` when more than one host matches.
   * @throws CattleApiError when the API fails and nothing is cached.
   */
  async byName(nodeName: string, signal?: AbortSignal): Promise<RancherHost> {
    try {
      const hosts = (await this.api.list<Host>('hosts', { removed_null: '1' }, signal)).filter((h) =>
        hostNameMatches(h.hostname, nodeName),
      );
      if (hosts.length > 1) throw new Error(`multiple instances found for name: ${nodeName}`);
      const found = hosts.length === 1 ? await this.#withAddresses(hosts[0]!, signal) : undefined;
      if (!found) throw new InstanceNotFoundError(`no Rancher host with addresses for node ${nodeName}`);
      this.#cache.set(nodeName, { value: found, expires: this.#now() + this.#ttlMs });
      return found;
    } catch (err) {
      if (err instanceof InstanceNotFoundError) this.#cache.delete(nodeName);
      if (err instanceof InstanceNotFoundError || signal?.aborted) throw err;
      const cached = this.#cache.get(nodeName);
      if (!cached || cached.expires <= this.#now()) throw err;
      this.log.warn('Cattle API failed; answering from the host cache', { node: nodeName, error: String(err) });
      return cached.value;
    }
  }

  /**
   * The host with the providerID's UUID (never from the cache).
   * @throws InstanceNotFoundError when there is none, or it has no IP address.
   * @throws Error for a providerID that is not `rancher://<uuid>`; CattleApiError when the API fails.
   */
  async byProviderID(providerID: string, signal?: AbortSignal): Promise<RancherHost> {
    const uuid = hostUUIDOf(providerID);
    const host = (await this.api.list<Host>('hosts', { removed_null: '1', uuid }, signal)).find((h) => h.uuid === uuid);
    const found = host ? await this.#withAddresses(host, signal) : undefined;
    if (!found) throw new InstanceNotFoundError(`no Rancher host with addresses for ${providerID}`);
    return found;
  }

  async #withAddresses(host: Host, signal?: AbortSignal): Promise<RancherHost | undefined> {
    const addresses = (await this.api.link<IpAddress>(host, 'ipAddresses', signal)).map((ip) => ip.address);
    return addresses.length > 0 ? { host, addresses } : undefined;
  }
}

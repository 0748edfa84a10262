/**
 * InstancesV2 for mockcloud servers.
 *
 * - A Node is matched by `spec.providerID` (`mockcloud://<id>`), or by name while it has none.
 * - Lookups are served from the shared {@link ServerCache}; a miss is confirmed with a direct API call.
 * - "Does not exist" is answered only when the API itself says so (404, or an empty name search).
 *   Any other failure — 401/403, 429, 5xx, timeouts — is thrown, so the node-lifecycle controller never
 *   deletes a Node because the cloud could not be asked.
 * - A providerID of another provider is an error, not "does not exist": this provider cannot judge it.
 * - The batch read `listInstanceStates` is one `GET /v1/servers` page per call (50 servers), straight from the
 *   API (not the cache): the controllers' periodic passes then cost a page per 50 servers, not a call per Node.
 */
import {
  type InstanceMetadata,
  InstanceNotFoundError,
  type InstanceStatePage,
  type InstancesV2,
} from '@ccm-kit/cloud-provider';
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';
import type { MockCloudClient, Server } from '../client/index.js';
import { providerIDFor, serverIDFromProviderID } from './provider-id.js';
import type { ServerCache } from './server-cache.js';

/** The Node addresses of a server: InternalIP, ExternalIP (when public) and Hostname. */
export function serverAddresses(server: Server): V1NodeAddress[] {
  const out: V1NodeAddress[] = [{ type: 'InternalIP', address: server.privateIP }];
  if (server.publicIP) out.push({ type: 'ExternalIP', address: server.publicIP });
  out.push({ type: 'Hostname', address: server.name });
  return out;
}

/** What `instanceMetadata` answers for a server. */
export function serverMetadata(server: Server): InstanceMetadata {
  return {
    providerID: providerIDFor(server.id),
    instanceType: server.type,
    zone: server.zone,
    region: server.region,
    nodeAddresses: serverAddresses(server),
  };
}

/** The InstancesV2 facet. */
export class MockCloudInstances implements InstancesV2 {
  constructor(
    private readonly client: MockCloudClient,
    private readonly cache: ServerCache,
  ) {}

  /**
   * The Node's server, or `undefined` when the API confirms there is none.
   * @throws Error for a foreign or malformed providerID, a Node without a name, a name matching several
   *   servers, and every API error.
   */
  async findServer(node: V1Node, signal?: AbortSignal): Promise<Server | undefined> {
    const nodeName = node.metadata?.name ?? '';
    const providerID = node.spec?.providerID ?? '';
    if (providerID !== '') {
      const id = serverIDFromProviderID(providerID);
      if (id === undefined) {
        throw new Error(`node ${nodeName} has providerID "${providerID}", which is not a mockcloud:// ID`);
      }
      const hit = (await this.cache.get(signal)).byID.get(id);
      if (hit) return hit;
      const direct = await this.client.getServer(id, signal);
      if (direct) this.cache.invalidate(); // the snapshot is stale
      return direct;
    }
    if (nodeName === '') throw new Error('the node has neither a providerID nor a name');
    const hits = (await this.cache.get(signal)).byName.get(nodeName);
    const candidates = hits && hits.length > 0 ? hits : await this.client.listServers({ name: nodeName, signal });
    if (candidates.length > 1) {
      throw new Error(
        `node ${nodeName}: ${candidates.length} servers have this name (${candidates.map((s) => s.id).join(', ')}); set spec.providerID`,
      );
    }
    if (candidates.length === 1 && !hits?.length) this.cache.invalidate();
    return candidates[0];
  }

  /** True unless the API confirms the server is gone. Stopped servers exist. */
  async instanceExists(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    return (await this.findServer(node, signal)) !== undefined;
  }

  /** True when the server's status is `off`; false when it is running or gone. */
  async instanceShutdown(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    return (await this.findServer(node, signal))?.status === 'off';
  }

  /**
   * providerID, type, zone, region and addresses of the Node's server.
   * @throws InstanceNotFoundError naming the Node when the API confirms there is no server for it.
   */
  async instanceMetadata(node: V1Node, signal?: AbortSignal): Promise<InstanceMetadata> {
    const server = await this.findServer(node, signal);
    if (!server) {
      const how = node.spec?.providerID ? `providerID ${node.spec.providerID}` : `name ${node.metadata?.name}`;
      throw new InstanceNotFoundError(`instance not found: no mockcloud server with ${how}`);
    }
    return serverMetadata(server);
  }

  /**
   * One page of the account's servers (`pageToken`: the page number, first page `undefined`), each with the
   * metadata `instanceMetadata` answers and `shutdown` for status `off`; one API call.
   * @throws Error for a page token that is not a page number, and every API error (the passes then ask per Node).
   */
  async listInstanceStates(pageToken: string | undefined, signal?: AbortSignal): Promise<InstanceStatePage> {
    const page = pageToken === undefined ? 1 : Number(pageToken);
    if (!Number.isSafeInteger(page) || page < 1) {
      throw new Error(`mockcloud: page token ${JSON.stringify(pageToken)} is not a page number`);
    }
    const { items, nextPage } = await this.client.listServerPage(page, { signal });
    const instances = items.map((s) => ({
      providerID: providerIDFor(s.id),
      metadata: serverMetadata(s),
      shutdown: s.status === 'off',
    }));
    return nextPage === null ? { instances } : { instances, nextPageToken: String(nextPage) };
  }
}

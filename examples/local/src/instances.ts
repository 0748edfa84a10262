/**
 * InstancesV2 over the inventory.
 *
 * - A Node with a providerID is looked up by providerID only: a machine re-created under a new ID is a new
 *   instance, as on a real cloud. A Node without one (not yet initialized) is looked up by name.
 * - `running` → exists; `stopped` → exists and shut down (the Node gets the shutdown taint);
 *   `absent`, or missing from the inventory → does not exist (node-lifecycle deletes the Node).
 * - A providerID of another cloud (not `local://…`) is **not ours**: every method throws
 *   {@link ForeignNodeError} rather than answer "does not exist", because lifecycle would delete a Node
 *   on `false`, and an error makes it leave the Node alone (the hybrid-cluster pain point). Pass
 *   {@link isLocalNode} as the app's node-ownership predicate to have such Nodes skipped without errors.
 * - The batch read `listInstanceStates` answers the whole inventory in one page (running and stopped machines),
 *   so the periodic passes read the inventory once per pass.
 */
import {
  type InstanceMetadata,
  InstanceNotFoundError,
  type InstanceStatePage,
  type InstancesV2,
} from '@ccm-kit/cloud-provider';
import type { V1Node } from '@kubernetes/client-node';
import { type Inventory, type Machine, PROVIDER_ID_PREFIX } from './inventory.js';

/** The Node belongs to another cloud: its providerID does not start with `local://`. */
export class ForeignNodeError extends Error {
  readonly providerID: string;
  constructor(node: string, providerID: string) {
    super(
      `node "${node}" has providerID "${providerID}", which is not a ${PROVIDER_ID_PREFIX} ID: it belongs to another cloud and is left alone`,
    );
    this.name = 'ForeignNodeError';
    this.providerID = providerID;
  }
}

/** True when the Node is (or may become) a machine of this cloud: no providerID yet, or a `local://` one. */
export function isLocalNode(node: V1Node): boolean {
  const id = node.spec?.providerID ?? '';
  return id === '' || id.startsWith(PROVIDER_ID_PREFIX);
}

export class LocalInstances implements InstancesV2 {
  readonly #inventory: () => Inventory;

  /** @param inventory - returns the current inventory (for example `watcher.current()` bound). */
  constructor(inventory: () => Inventory) {
    this.#inventory = inventory;
  }

  /**
   * The machine of `node`, or `undefined` when the inventory has none or it is `absent`.
   * @throws ForeignNodeError for a providerID of another cloud.
   */
  machineOf(node: V1Node): Machine | undefined {
    const inv = this.#inventory();
    const name = node.metadata?.name ?? '';
    const providerID = node.spec?.providerID ?? '';
    let machine: Machine | undefined;
    if (providerID !== '') {
      if (!providerID.startsWith(PROVIDER_ID_PREFIX)) throw new ForeignNodeError(name, providerID);
      machine = inv.byProviderID.get(providerID);
    } else {
      machine = inv.byName.get(name);
    }
    return machine?.state === 'absent' ? undefined : machine;
  }

  /** False for absent or missing machines; true for running and stopped ones. @throws ForeignNodeError */
  async instanceExists(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    return this.machineOf(node) !== undefined;
  }

  /** True for stopped machines; false otherwise (including missing ones). @throws ForeignNodeError */
  async instanceShutdown(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    return this.machineOf(node)?.state === 'stopped';
  }

  /**
   * The machine's providerID, addresses, zone, region, instance type and additional labels.
   * @throws InstanceNotFoundError (naming the Node) when the inventory has no such machine or it is absent.
   * @throws ForeignNodeError for a providerID of another cloud.
   */
  async instanceMetadata(node: V1Node, signal?: AbortSignal): Promise<InstanceMetadata> {
    signal?.throwIfAborted();
    const m = this.machineOf(node);
    if (!m) {
      const by = node.spec?.providerID ? `providerID ${node.spec.providerID}` : `name ${node.metadata?.name}`;
      throw new InstanceNotFoundError(`instance not found: no running or stopped machine with ${by} in the inventory`);
    }
    return metadataOf(m);
  }

  /** Every running or stopped machine of the inventory, in one page (`pageToken` is ignored). */
  async listInstanceStates(_pageToken: string | undefined, signal?: AbortSignal): Promise<InstanceStatePage> {
    signal?.throwIfAborted();
    const machines = this.#inventory().machines.filter((m) => m.state !== 'absent');
    return {
      instances: machines.map((m) => ({
        providerID: m.providerID,
        metadata: metadataOf(m),
        shutdown: m.state === 'stopped',
      })),
    };
  }
}

/** What `instanceMetadata` answers for a machine (copies). */
function metadataOf(m: Machine): InstanceMetadata {
  return {
    providerID: m.providerID,
    nodeAddresses: m.addresses.map((a) => ({ ...a })),
    additionalLabels: { ...m.additionalLabels },
    ...(m.instanceType !== undefined ? { instanceType: m.instanceType } : {}),
    ...(m.zone !== undefined ? { zone: m.zone } : {}),
    ...(m.region !== undefined ? { region: m.region } : {}),
  };
}

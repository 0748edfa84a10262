/**
 * The fake cloud's per-instance table (beyond upstream): machines registered by node name or
 * providerID, answering the instance and zone methods for the nodes they match.
 */
import type { InstanceMetadata, InstanceStatePage, Zone } from '@ccm-kit/cloud-provider';
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';

/** What a test says about one machine. Every field is optional; see {@link InstanceTable.set}. */
export interface FakeInstanceSpec {
  /** `<provider>://<id>`; defaults to the registration key when that contains `://`. */
  providerID?: string;
  /** The node addresses (copied in and out). */
  addresses?: V1NodeAddress[];
  /** The instance type (`''` when unset). */
  instanceType?: string;
  /** The zone's failure domain (`''` when unset). */
  zone?: string;
  /** The region (`''` when unset). */
  region?: string;
  /** Whether the machine exists (default `true`); `false` answers "does not exist". */
  exists?: boolean;
  /** Whether the machine is shut down (default `false`). */
  shutdown?: boolean;
  /** `InstanceMetadata.additionalLabels` (copied). */
  additionalLabels?: Record<string, string>;
}

/** A registered machine, as stored (defaults applied). */
export interface FakeInstance {
  /** The node name or providerID it was registered under. */
  readonly key: string;
  /** The providerID it reports (`undefined`: none registered). */
  readonly providerID: string | undefined;
  /** Its addresses, as `NodeAddresses` returns them. */
  readonly addresses: V1NodeAddress[];
  /** Its instance type. */
  readonly instanceType: string;
  /** Its zone (`topology.kubernetes.io/zone`). */
  readonly zone: string;
  /** Its region (`topology.kubernetes.io/region`). */
  readonly region: string;
  /** Whether the machine exists; false answers `instanceExists` false and `InstanceNotFound` to the lookups. */
  readonly exists: boolean;
  /** Whether the machine is shut down (`instanceShutdown`). */
  readonly shutdown: boolean;
  /** Extra labels `instanceMetadata` reports. */
  readonly additionalLabels: Record<string, string> | undefined;
}

const copyAddresses = (addresses: readonly V1NodeAddress[]): V1NodeAddress[] => addresses.map((a) => ({ ...a }));

/**
 * Machines keyed by node name or providerID, also indexed by their providerID.
 * A node matches the entry registered under its `spec.providerID`, else the entry whose providerID
 * equals it, else the entry registered under its name.
 */
export class InstanceTable {
  readonly #byKey = new Map<string, FakeInstance>();
  readonly #byProviderID = new Map<string, FakeInstance>();

  /**
   * Registers or updates the machine under `key`: fields given replace the stored ones, fields
   * omitted keep their current value (or the defaults for a new machine). Returns the stored entry.
   * @throws TypeError naming `key` when it is empty.
   */
  set(key: string, spec: FakeInstanceSpec): FakeInstance {
    if (typeof key !== 'string' || key === '') {
      throw new TypeError('setInstance: key (a node name or providerID) must be a non-empty string');
    }
    const old = this.#byKey.get(key);
    const defined = Object.fromEntries(Object.entries(spec ?? {}).filter(([, v]) => v !== undefined));
    const merged: FakeInstanceSpec = { ...old, ...defined };
    const entry: FakeInstance = {
      key,
      providerID: merged.providerID ?? (key.includes('://') ? key : undefined),
      addresses: copyAddresses(merged.addresses ?? []),
      instanceType: merged.instanceType ?? '',
      zone: merged.zone ?? '',
      region: merged.region ?? '',
      exists: merged.exists ?? true,
      shutdown: merged.shutdown ?? false,
      additionalLabels: merged.additionalLabels === undefined ? undefined : { ...merged.additionalLabels },
    };
    this.delete(key);
    this.#byKey.set(key, entry);
    if (entry.providerID !== undefined) this.#byProviderID.set(entry.providerID, entry);
    return entry;
  }

  /** Forgets the machine registered under `key`; true when there was one. */
  delete(key: string): boolean {
    const old = this.#byKey.get(key);
    if (old === undefined) return false;
    this.#byKey.delete(key);
    if (old.providerID !== undefined && this.#byProviderID.get(old.providerID) === old) {
      this.#byProviderID.delete(old.providerID);
    }
    return true;
  }

  /** The machine registered under `key` (exactly), if any. */
  get(key: string): FakeInstance | undefined {
    return this.#byKey.get(key);
  }

  /** Every registered machine, in registration order. */
  list(): FakeInstance[] {
    return [...this.#byKey.values()];
  }

  /** Forgets every machine. */
  clear(): void {
    this.#byKey.clear();
    this.#byProviderID.clear();
  }

  /** The machine for a providerID or node name: registered under it, or (for a providerID) having it. */
  find(nameOrProviderID: string | undefined): FakeInstance | undefined {
    if (!nameOrProviderID) return undefined;
    return this.#byKey.get(nameOrProviderID) ?? this.#byProviderID.get(nameOrProviderID);
  }

  /** The machine for `node`: by `spec.providerID` first, then by `metadata.name`. */
  findNode(node: V1Node): FakeInstance | undefined {
    return this.find(node.spec?.providerID) ?? this.find(node.metadata?.name);
  }
}

/** The instance ID of a machine: its providerID without the `<provider>://` prefix, else its key. */
export function instanceIdOf(instance: FakeInstance): string {
  const id = instance.providerID;
  if (id === undefined) return instance.key;
  const at = id.indexOf('://');
  return at < 0 ? id : id.slice(at + 3);
}

/** The `InstanceMetadata` of a machine (copies). */
export function metadataOf(instance: FakeInstance): InstanceMetadata {
  return {
    providerID: instance.providerID ?? '',
    instanceType: instance.instanceType,
    nodeAddresses: copyAddresses(instance.addresses),
    zone: instance.zone,
    region: instance.region,
    additionalLabels: instance.additionalLabels === undefined ? undefined : { ...instance.additionalLabels },
  };
}

/**
 * Page `page` (1-based) of the machines that exist and have a providerID, `pageSize` per page, as
 * `listInstanceStates` answers it; `nextPageToken` is the next page's number.
 */
export function instanceStatePage(
  machines: readonly FakeInstance[],
  pageSize: number,
  page: number,
): InstanceStatePage {
  const listed = machines.filter((m) => m.exists && m.providerID !== undefined);
  const instances = listed.slice((page - 1) * pageSize, page * pageSize).map((m) => ({
    providerID: m.providerID!,
    metadata: metadataOf(m),
    shutdown: m.shutdown,
  }));
  return page * pageSize < listed.length ? { instances, nextPageToken: String(page + 1) } : { instances };
}

/** The `Zone` of a machine. */
export function zoneOf(instance: FakeInstance): Zone {
  return { failureDomain: instance.zone, region: instance.region };
}

/** Copies of `addresses` (so callers cannot change the fake's state). */
export { copyAddresses };

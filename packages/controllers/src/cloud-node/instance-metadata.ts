/**
 * How the cloud-node controller asks the cloud about a Node: full metadata for initialization, addresses
 * only for the status loop. Uses InstancesV2 when supported, else Instances (+ Zones).
 *
 * Follows upstream `controllers/node/node_controller.go` (`getInstanceMetadata`, `getInstanceNodeAddresses`,
 * `getNodeAddressesByProviderIDOrName`, `getInstanceTypeByProviderIDOrName`, `getZoneByProviderIDOrName`).
 * Upstream `k8s.io/cloud-provider controllers/node/node_controller.go`; upstream quirk 17 in docs/upstream-quirks.md.
 */
import {
  type CloudProvider,
  findError,
  getInstanceProviderID,
  type InstanceMetadata,
  type Instances,
  NotImplementedError,
  type Zone,
  type Zones,
} from '@ccm-kit/cloud-provider';
import { errorMessage } from '@ccm-kit/cloud-provider/internal';
import type { Logger } from '@ccm-kit/runtime';
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';

/**
 * Thrown by {@link getInstanceMetadata} when an InstancesV2 provider sets no providerID and the Node has none.
 * Carries the metadata the provider did return (upstream returns both).
 */
export class MissingProviderIDError extends Error {
  readonly metadata: InstanceMetadata;
  constructor(nodeName: string, metadata: InstanceMetadata) {
    super(`cloud provider does not set node provider ID for node ${nodeName}`);
    this.name = 'MissingProviderIDError';
    this.metadata = metadata;
  }
}

/** Addresses by providerID, falling back to the node name (both tried even with an empty providerID). */
export async function nodeAddressesByProviderIDOrName(
  instances: Instances,
  providerID: string,
  nodeName: string,
  signal?: AbortSignal,
): Promise<V1NodeAddress[]> {
  try {
    return await instances.nodeAddressesByProviderID(providerID, signal);
  } catch (byID) {
    try {
      return await instances.nodeAddresses(nodeName, signal);
    } catch (byName) {
      throw new Error(
        `error fetching node by provider ID: ${errorMessage(byID)}, and error by node name: ${errorMessage(byName)}`,
        { cause: byName },
      );
    }
  }
}

async function instanceTypeByProviderIDOrName(
  instances: Instances,
  providerID: string,
  nodeName: string,
  signal?: AbortSignal,
): Promise<string> {
  try {
    return await instances.instanceTypeByProviderID(providerID, signal);
  } catch (byID) {
    try {
      return await instances.instanceType(nodeName, signal);
    } catch (byName) {
      throw new Error(
        `InstanceType: Error fetching by providerID: ${errorMessage(byID)} Error fetching by NodeName: ${errorMessage(byName)}`,
        { cause: byName },
      );
    }
  }
}

async function zoneByProviderIDOrName(
  zones: Zones,
  providerID: string,
  nodeName: string,
  signal?: AbortSignal,
): Promise<Zone> {
  try {
    return await zones.getZoneByProviderID(providerID, signal);
  } catch (byID) {
    try {
      return await zones.getZoneByNodeName(nodeName, signal);
    } catch (byName) {
      throw new Error(
        `failed to get zone from cloud provider: Zone: Error fetching by providerID: ${errorMessage(byID)} Error fetching by NodeName: ${errorMessage(byName)}`,
        { cause: byName },
      );
    }
  }
}

/**
 * The metadata to initialize `node` with, or `undefined` when an InstancesV2 provider has none.
 *
 * InstancesV2: `instanceMetadata(node)`; an empty metadata providerID takes the Node's, and is an error when
 * both are empty. Instances (v1): providerID from the Node or `getInstanceProviderID` (a `NotImplementedError`
 * anywhere in the cause chain continues with an empty providerID, with a warning), addresses and instance
 * type by providerID falling back to name, then zone/region from Zones when supported.
 * @throws MissingProviderIDError (InstancesV2, no providerID anywhere).
 * @throws Error `failed to get instances from cloud provider` when neither facet is supported.
 * @throws the provider's errors, and the combined fallback errors above.
 */
export async function getInstanceMetadata(
  cloud: CloudProvider,
  node: V1Node,
  logger: Logger,
  signal?: AbortSignal,
): Promise<InstanceMetadata | undefined> {
  const nodeName = node.metadata?.name ?? '';
  let providerID = node.spec?.providerID ?? '';
  const v2 = cloud.instancesV2?.();
  if (v2) {
    const found = await v2.instanceMetadata(node, signal);
    if (!found) return undefined;
    const metadata = { ...found };
    if (!metadata.providerID) {
      if (providerID === '') throw new MissingProviderIDError(nodeName, metadata);
      metadata.providerID = providerID;
    }
    return metadata;
  }
  const instances = cloud.instances?.();
  if (!instances) throw new Error('failed to get instances from cloud provider');
  if (providerID === '') {
    try {
      providerID = await getInstanceProviderID(cloud, nodeName, signal);
    } catch (err) {
      if (!findError(err, NotImplementedError)) throw err;
      logger.warn('cloud provider does not set node provider ID, using node name to discover node', {
        node: nodeName,
      });
    }
  }
  const nodeAddresses = await nodeAddressesByProviderIDOrName(instances, providerID, nodeName, signal);
  const instanceType = await instanceTypeByProviderIDOrName(instances, providerID, nodeName, signal);
  const metadata: InstanceMetadata = { providerID, instanceType, nodeAddresses };
  const zones = cloud.zones?.();
  if (!zones) return metadata;
  const zone = await zoneByProviderIDOrName(zones, providerID, nodeName, signal);
  if (zone.failureDomain) metadata.zone = zone.failureDomain;
  if (zone.region) metadata.region = zone.region;
  return metadata;
}

/**
 * What the status loop needs: InstancesV2 metadata as is (may be `undefined`), or with v1 only the addresses
 * by the Node's providerID, falling back to its name (one cloud call when the providerID lookup succeeds).
 * @throws Error `failed to get instances from cloud provider` when neither facet is supported.
 */
export async function getInstanceNodeAddresses(
  cloud: CloudProvider,
  node: V1Node,
  signal?: AbortSignal,
): Promise<InstanceMetadata | undefined> {
  const v2 = cloud.instancesV2?.();
  if (v2) return (await v2.instanceMetadata(node, signal)) ?? undefined;
  const instances = cloud.instances?.();
  if (!instances) throw new Error('failed to get instances from cloud provider');
  const nodeAddresses = await nodeAddressesByProviderIDOrName(
    instances,
    node.spec?.providerID ?? '',
    node.metadata?.name ?? '',
    signal,
  );
  return { nodeAddresses };
}

/**
 * What the cloud-node-lifecycle controller asks the cloud: does a Node's instance exist, is it shut down,
 * and which providerID it has. Uses InstancesV2 when supported, else Instances.
 *
 * Follows upstream `controllers/nodelifecycle/node_lifecycle_controller.go` (`ensureNodeExistsByProviderID`,
 * `shutdownInCloudProvider`, `getProviderID`). Sentinel errors are matched on the thrown error itself
 * (`instanceof`, not the cause chain), as upstream's `==` comparison. Reference: upstream-behaviour.md §3.2, §7 item 23.
 */
import {
  type CloudProvider,
  getInstanceProviderID,
  InstanceNotFoundError,
  NotImplementedError,
} from '@ccm-kit/cloud-provider';
import type { V1Node } from '@kubernetes/client-node';

/**
 * The Node's providerID: `spec.providerID` when set; else InstancesV2 `instanceMetadata(node).providerID`
 * (empty string when unset, also when the provider returns no metadata — upstream would crash there);
 * else `getInstanceProviderID` through Instances.
 * @throws the provider's errors unchanged, including `InstanceNotFoundError` and
 *   `failed to get instance ID from cloud provider: <err>`.
 */
export async function getProviderID(
  cloud: CloudProvider,
  node: V1Node,
  signal?: AbortSignal,
): Promise<string> {
  const fromSpec = node.spec?.providerID;
  if (fromSpec) return fromSpec;
  const v2 = cloud.instancesV2?.();
  if (v2) return (await v2.instanceMetadata(node, signal))?.providerID ?? '';
  return getInstanceProviderID(cloud, node.metadata?.name ?? '', signal);
}

/**
 * Whether the Node's instance exists in the cloud. InstancesV2: `instanceExists(node)`. Instances:
 * `instanceExistsByProviderID(getProviderID(node))`, where an `InstanceNotFoundError` from the providerID
 * lookup means "does not exist".
 * @throws Error `instances interface not supported in the cloud provider` without either facet, and any other
 *   provider error (the caller then skips the Node for this pass; it never deletes on an error).
 */
export async function instanceExists(
  cloud: CloudProvider,
  node: V1Node,
  signal?: AbortSignal,
): Promise<boolean> {
  const v2 = cloud.instancesV2?.();
  if (v2) return v2.instanceExists(node, signal);
  const instances = cloud.instances?.();
  if (!instances) throw new Error('instances interface not supported in the cloud provider');
  let providerID: string;
  try {
    providerID = await getProviderID(cloud, node, signal);
  } catch (err) {
    if (err instanceof InstanceNotFoundError) return false;
    throw err;
  }
  return instances.instanceExistsByProviderID(providerID, signal);
}

/**
 * Whether the Node's instance is shut down. InstancesV2: `instanceShutdown(node)`. Instances:
 * `instanceShutdownByProviderID(getProviderID(node))`, where an `InstanceNotFoundError` from the providerID
 * lookup and a `NotImplementedError` from the shutdown call both mean "not shut down".
 * @throws Error `cloud provider does not support instances` without either facet, and any other provider error.
 */
export async function instanceShutdown(
  cloud: CloudProvider,
  node: V1Node,
  signal?: AbortSignal,
): Promise<boolean> {
  const v2 = cloud.instancesV2?.();
  if (v2) return v2.instanceShutdown(node, signal);
  const instances = cloud.instances?.();
  if (!instances) throw new Error('cloud provider does not support instances');
  let providerID: string;
  try {
    providerID = await getProviderID(cloud, node, signal);
  } catch (err) {
    if (err instanceof InstanceNotFoundError) return false;
    throw err;
  }
  try {
    return await instances.instanceShutdownByProviderID(providerID, signal);
  } catch (err) {
    if (err instanceof NotImplementedError) return false;
    throw err;
  }
}

/**
 * What the cloud-node-lifecycle controller asks the cloud: does a Node's instance exist, is it shut down,
 * and which providerID it has. Uses InstancesV2 when supported, else Instances.
 *
 * Follows upstream `controllers/nodelifecycle/node_lifecycle_controller.go` (`ensureNodeExistsByProviderID`,
 * `shutdownInCloudProvider`, `getProviderID`). Sentinel errors are matched on the thrown error itself
 * (`instanceof`, not the cause chain), as upstream's `==` comparison. Upstream `k8s.io/cloud-provider controllers/nodelifecycle/node_lifecycle_controller.go`; upstream quirk 23 in docs/upstream-quirks.md.
 */
import {
  type CloudProvider,
  getInstanceProviderID,
  type Instances,
  InstanceNotFoundError,
  NotImplementedError,
} from '@ccm-kit/cloud-provider';
import type { V1Node } from '@kubernetes/client-node';

/**
 * The provider's answer when it is a real boolean. Anything else (`undefined` from a method that forgot to
 * return, `null`, a string) is a provider bug; upstream's Go signature cannot express it. Read as "false" it
 * would **delete** the Node, so it is an error instead and the Node is skipped (decision 0102).
 * @throws TypeError `<method> returned <value> for node <name>, not a boolean`.
 */
function booleanAnswer(value: unknown, method: string, node: V1Node): boolean {
  if (typeof value === 'boolean') return value;
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  throw new TypeError(`${method} returned ${shown} for node ${node.metadata?.name ?? ''}, not a boolean`);
}

/**
 * The Node's providerID: `spec.providerID` when set; else InstancesV2 `instanceMetadata(node).providerID`
 * (empty string when unset, also when the provider returns no metadata — upstream would crash there);
 * else `getInstanceProviderID` through Instances.
 * @throws the provider's errors unchanged, including `InstanceNotFoundError` and
 *   `failed to get instance ID from cloud provider: <err>`.
 */
export async function getProviderID(cloud: CloudProvider, node: V1Node, signal?: AbortSignal): Promise<string> {
  const fromSpec = node.spec?.providerID;
  if (fromSpec) return fromSpec;
  const v2 = cloud.instancesV2?.();
  if (v2) return (await v2.instanceMetadata(node, signal))?.providerID ?? '';
  return getInstanceProviderID(cloud, node.metadata?.name ?? '', signal);
}

/**
 * The Instances facet and the Node's providerID, for the questions asked through Instances (upstream asks them
 * after the same two steps); `undefined` when the providerID lookup finds no instance (`InstanceNotFoundError`).
 * @throws Error `unsupported` (upstream's message differs per question) when the provider has no Instances facet,
 *   and any other error of the providerID lookup.
 */
async function instanceByProviderID(
  cloud: CloudProvider,
  node: V1Node,
  unsupported: string,
  signal?: AbortSignal,
): Promise<{ instances: Instances; providerID: string } | undefined> {
  const instances = cloud.instances?.();
  if (!instances) throw new Error(unsupported);
  try {
    return { instances, providerID: await getProviderID(cloud, node, signal) };
  } catch (err) {
    if (err instanceof InstanceNotFoundError) return undefined;
    throw err;
  }
}

/**
 * Whether the Node's instance exists in the cloud. InstancesV2: `instanceExists(node)`. Instances:
 * `instanceExistsByProviderID(getProviderID(node))`, where an `InstanceNotFoundError` from the providerID
 * lookup means "does not exist".
 * @throws Error `instances interface not supported in the cloud provider` without either facet, and any other
 *   provider error (the caller then skips the Node for this pass; it never deletes on an error).
 * @throws TypeError when the provider answers with anything but a boolean (decision 0102).
 */
export async function instanceExists(cloud: CloudProvider, node: V1Node, signal?: AbortSignal): Promise<boolean> {
  const v2 = cloud.instancesV2?.();
  if (v2) return booleanAnswer(await v2.instanceExists(node, signal), 'instanceExists', node);
  const found = await instanceByProviderID(
    cloud,
    node,
    'instances interface not supported in the cloud provider',
    signal,
  );
  if (!found) return false;
  return booleanAnswer(
    await found.instances.instanceExistsByProviderID(found.providerID, signal),
    'instanceExistsByProviderID',
    node,
  );
}

/**
 * Whether the Node's instance is shut down. InstancesV2: `instanceShutdown(node)`. Instances:
 * `instanceShutdownByProviderID(getProviderID(node))`, where an `InstanceNotFoundError` from the providerID
 * lookup and a `NotImplementedError` from the shutdown call both mean "not shut down".
 * @throws Error `cloud provider does not support instances` without either facet, and any other provider error.
 * @throws TypeError when the provider answers with anything but a boolean (decision 0102).
 */
export async function instanceShutdown(cloud: CloudProvider, node: V1Node, signal?: AbortSignal): Promise<boolean> {
  const v2 = cloud.instancesV2?.();
  if (v2) return booleanAnswer(await v2.instanceShutdown(node, signal), 'instanceShutdown', node);
  const found = await instanceByProviderID(cloud, node, 'cloud provider does not support instances', signal);
  if (!found) return false;
  let shutdown: unknown;
  try {
    shutdown = await found.instances.instanceShutdownByProviderID(found.providerID, signal);
  } catch (err) {
    if (err instanceof NotImplementedError) return false;
    throw err;
  }
  return booleanAnswer(shutdown, 'instanceShutdownByProviderID', node);
}

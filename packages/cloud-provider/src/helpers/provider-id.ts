/**
 * Provider ID lookup through the legacy Instances facet.
 * Follows upstream `k8s.io/cloud-provider/cloud.go` `GetInstanceProviderID`.
 */
import type { CloudProvider } from '../cloud.js';
import { InstanceNotFoundError, NotImplementedError } from '../errors.js';
import { errorMessage } from './error-message.js';

/**
 * The provider ID of the named node: `<providerName()>://<instanceID>`.
 *
 * Quirk kept from upstream: an empty instance ID with no error still gives `"<providerName>://"`
 * (for example `fake://`).
 * @param signal - passed to `Instances.instanceID`.
 * @throws Error `failed to get instances from cloud provider` when the Instances facet is unsupported.
 * @throws the very `NotImplementedError` or `InstanceNotFoundError` that `instanceID` threw, unwrapped
 *   (checked on the thrown error itself, not its cause chain, as upstream's identity comparison).
 * @throws Error `failed to get instance ID from cloud provider: <message>` (with the original as `cause`)
 *   for any other failure.
 */
export async function getInstanceProviderID(
  cloud: CloudProvider,
  nodeName: string,
  signal?: AbortSignal,
): Promise<string> {
  const instances = cloud.instances?.();
  if (instances === undefined || instances === null) {
    throw new Error('failed to get instances from cloud provider');
  }
  let instanceID: string;
  try {
    instanceID = await instances.instanceID(nodeName, signal);
  } catch (err) {
    if (err instanceof NotImplementedError || err instanceof InstanceNotFoundError) throw err;
    throw new Error(`failed to get instance ID from cloud provider: ${errorMessage(err)}`, { cause: err });
  }
  return `${cloud.providerName()}://${instanceID}`;
}

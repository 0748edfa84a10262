/**
 * Building the provider at start-up, as upstream's `cloudInitializer` (k8s.io/cloud-provider `sample/basic_main.go`) but with
 * errors instead of `klog.Fatal`: runs on every replica, before leader election.
 */
import { type CloudProvider, initCloudProvider, isExternal, registeredCloudProviders } from '@ccm-kit/cloud-provider';
import type { Logger } from '@ccm-kit/runtime';
import { StartupError } from '../errors.js';

/**
 * Initializes the provider named by `--cloud-provider` from the registry (unless `given` is passed),
 * then applies the cluster-ID check.
 * @throws StartupError for `external`, an unknown provider, a failing factory or config file, or a missing cluster ID
 *   without `--allow-untagged-cloud`.
 */
export async function initializeCloud(
  name: string,
  cloudConfigFile: string,
  allowUntaggedCloud: boolean,
  logger: Logger,
  given?: CloudProvider,
): Promise<CloudProvider> {
  let cloud = given;
  if (!cloud) {
    if (isExternal(name)) {
      throw new StartupError(
        `--cloud-provider=external names no provider: the cloud-controller-manager is the external provider. ` +
          `Set --cloud-provider to the name your provider registered (${describeRegistered()}).`,
      );
    }
    try {
      cloud = await initCloudProvider(name, cloudConfigFile || undefined);
    } catch (err) {
      throw new StartupError(`Cloud provider could not be initialized: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (!cloud) throw new StartupError(`Cloud provider is nil: --cloud-provider=${JSON.stringify(name)}`);
  }
  if (!cloud.hasClusterID()) {
    if (allowUntaggedCloud) {
      logger.warn(
        'detected a cluster without a ClusterID. A ClusterID will be required in the future. Please tag your cluster to avoid any future issues',
      );
    } else {
      throw new StartupError(
        'no ClusterID found. A ClusterID is required for the cloud provider to function properly. This check can be bypassed by setting the allow-untagged-cloud option',
      );
    }
  }
  return cloud;
}

function describeRegistered(): string {
  const names = registeredCloudProviders();
  return names.length ? `registered: ${names.join(', ')}` : 'none is registered: call registerCloudProvider first';
}

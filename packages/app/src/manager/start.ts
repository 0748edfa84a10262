/**
 * The package's `startCloudControllerManager`: the manager's modules (API clients, informers, controllers, metrics,
 * serving) are imported on the first call, not when `@ccm-kit/app` is imported, so that a binary answers `--help`,
 * `--version` and flag errors without loading them (a bundle keeps them in chunks it loads on demand).
 */
import type { CloudControllerManager, StartOptions } from './manager.js';

/**
 * Starts a cloud-controller-manager in this process (see `manager.ts`).
 * @throws FlagError / ConfigError for bad flags, StartupError for provider, kubeconfig or serving problems.
 */
export async function startCloudControllerManager(opts: StartOptions = {}): Promise<CloudControllerManager> {
  const manager = await import('./manager.js');
  return manager.startCloudControllerManager(opts);
}

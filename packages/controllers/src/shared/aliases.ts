/**
 * A built-in controller's older names, read from cloud-provider's `CLOUD_CONTROLLER_ALIASES` (upstream
 * `k8s.io/cloud-provider/names` `CCMControllerAliases`), so that the alias list is written once.
 */
import { CLOUD_CONTROLLER_ALIASES } from '@ccm-kit/cloud-provider';

/** The aliases of the canonical controller `name` (for example `['cloud-node']`), frozen; empty for none. */
export function upstreamAliases(name: string): readonly string[] {
  return Object.freeze(
    Object.keys(CLOUD_CONTROLLER_ALIASES).filter((alias) => CLOUD_CONTROLLER_ALIASES[alias] === name),
  );
}

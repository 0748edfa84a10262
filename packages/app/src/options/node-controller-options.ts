/**
 * Validation of the cloud-node-controller options. Follows upstream `options.NodeControllerOptions.Validate`
 * (reference §4.2, scenarios OPT-06 … OPT-11). Upstream never calls it at start-up, so `--concurrent-node-syncs=0`
 * starts a controller with no workers; ccm-kit rejects such values when building the configuration
 * (docs/decisions/0008-node-controller-options-validated.md).
 */

/** The node controller's worker counts (`--concurrent-node-syncs`, `--concurrent-node-status-updates`). */
export interface NodeControllerOptions {
  concurrentNodeSyncs: number;
  concurrentNodeStatusUpdates: number;
}

/**
 * @returns upstream's messages, one per problem: `concurrent-node-syncs must be a positive number` (≤ 0) and
 *   `concurrent-node-status-updates cannot be a negative number` (< 0); none for `undefined` options.
 */
export function validateNodeControllerOptions(opts: NodeControllerOptions | undefined): string[] {
  if (!opts) return [];
  const errs: string[] = [];
  if (!(opts.concurrentNodeSyncs > 0)) errs.push('concurrent-node-syncs must be a positive number');
  if (opts.concurrentNodeStatusUpdates < 0) errs.push('concurrent-node-status-updates cannot be a negative number');
  return errs;
}

/**
 * The cloud-node-controller's flags (`--concurrent-node-syncs`, `--concurrent-node-status-updates`) and their
 * validation. Follows upstream `options.NodeControllerOptions` (`AddFlags`, `ApplyTo`, `Validate`). Upstream
 * never calls `Validate` at start-up, so `--concurrent-node-syncs=0` starts a controller with no workers;
 * ccm-kit rejects such values when building the configuration
 * (docs/decisions/0008-node-controller-options-validated.md).
 */
import type { CloudControllerConfig } from '@ccm-kit/controllers';
import { num, type OptionGroup } from './option-group.js';

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

const given = (v: Readonly<Record<string, unknown>>): NodeControllerOptions => ({
  concurrentNodeSyncs: num(v, 'concurrent-node-syncs'),
  concurrentNodeStatusUpdates: num(v, 'concurrent-node-status-updates'),
});

export const nodeControllerOptions: OptionGroup<
  Pick<CloudControllerConfig, 'concurrentNodeSyncs' | 'concurrentNodeStatusUpdates'>
> = {
  addFlags(fss) {
    fss
      .flagSet('cloud-node-controller')
      .int('concurrent-node-syncs', 1, 'Number of workers concurrently synchronizing nodes.', { typeName: 'int32' })
      .int(
        'concurrent-node-status-updates',
        0,
        'Number of workers concurrently updating node statuses. If unspecified or 0, --concurrent-node-syncs is used instead',
        { typeName: 'int32' },
      );
  },
  validate: (v) => validateNodeControllerOptions(given(v)).map((e) => `--${e}`),
  applyTo(v) {
    const o = given(v);
    return {
      concurrentNodeSyncs: o.concurrentNodeSyncs,
      concurrentNodeStatusUpdates:
        o.concurrentNodeStatusUpdates > 0 ? o.concurrentNodeStatusUpdates : o.concurrentNodeSyncs,
    };
  },
};

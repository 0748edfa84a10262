/**
 * `--out-of-service-taint-after` (no upstream counterpart, off by default): how long cloud-node-lifecycle-controller
 * must have seen a Node's machine shut down before it adds `node.kubernetes.io/out-of-service`
 * (docs/controllers/cloud-node-lifecycle-controller.md). 0 keeps upstream behaviour.
 */
import type { CloudControllerConfig } from '@ccm-kit/controllers';
import { nonNegative, num, type OptionGroup } from './option-group.js';

export const outOfServiceOptions: OptionGroup<Pick<CloudControllerConfig, 'outOfServiceTaintAfterMs'>> = {
  addFlags(fss) {
    fss
      .flagSet('cloud-node-lifecycle-controller')
      .duration(
        'out-of-service-taint-after',
        0,
        "How long a Node's machine must be reported shut down before cloud-node-lifecycle-controller adds the node.kubernetes.io/out-of-service=nodeshutdown:NoExecute taint (its Pods are then deleted and their volumes detached); the taint it added is removed once the machine runs again. 0 disables it.",
        { validate: nonNegative },
      );
  },
  validate: () => [],
  applyTo: (v) => ({ outOfServiceTaintAfterMs: num(v, 'out-of-service-taint-after') }),
};

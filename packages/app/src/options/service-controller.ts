/**
 * `--concurrent-service-syncs`, as k8s.io/cloud-provider `options/servicecontroller.go`. Upstream validates
 * nothing here and starts no worker for a value below 1 (Services are then never reconciled); ccm-kit rejects
 * it when building the configuration, naming the flag (docs/decisions/0020-service-syncs-validated.md).
 * Beyond upstream: `--host-update-window`, how long Node changes are gathered into one load-balancer host update
 * (docs/decisions/0206-host-update-window.md; `0s` is upstream's timing), and `--service-status-conditions`, the
 * condition `ccm-kit.io/LoadBalancerServing` on each Service (off by default, as upstream writes none;
 * docs/decisions/0208-service-status-condition.md).
 */
import { type CloudControllerConfig, DEFAULT_HOST_UPDATE_WINDOW_MS } from '@ccm-kit/controllers';
import { bool, num, type OptionGroup } from './option-group.js';

export const serviceControllerOptions: OptionGroup<
  Pick<CloudControllerConfig, 'concurrentServiceSyncs' | 'hostUpdateWindowMs' | 'serviceStatusConditions'>
> = {
  addFlags(fss) {
    fss
      .flagSet('service-lb-controller')
      .int(
        'concurrent-service-syncs',
        1,
        'The number of services that are allowed to sync concurrently. Larger number = more responsive service management, but more CPU (and network) load',
        { typeName: 'int32' },
      )
      .duration(
        'host-update-window',
        DEFAULT_HOST_UPDATE_WINDOW_MS,
        "How long Node changes are gathered before the load balancers' hosts are updated, so that Nodes joining together cost one update per load balancer. 0s updates at once for every change.",
      )
      .bool(
        'service-status-conditions',
        false,
        "If true, the service controller keeps the condition ccm-kit.io/LoadBalancerServing in each LoadBalancer Service's status: True once its load balancer is ensured, False with the reason and the Warning Event's message while it is provisioning, refused or failing; removed when the Service no longer wants a load balancer.",
      );
  },
  validate(v) {
    const n = num(v, 'concurrent-service-syncs');
    const errs = n >= 1 ? [] : [`--concurrent-service-syncs must be a positive number, got ${n}`];
    const w = num(v, 'host-update-window');
    if (!(w >= 0)) errs.push(`--host-update-window must not be negative, got ${w}ms`);
    return errs;
  },
  applyTo: (v) => ({
    concurrentServiceSyncs: num(v, 'concurrent-service-syncs'),
    hostUpdateWindowMs: num(v, 'host-update-window'),
    serviceStatusConditions: bool(v, 'service-status-conditions'),
  }),
};

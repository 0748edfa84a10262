/**
 * The flags of `service-lb-gc-controller` (no upstream counterpart; docs/controllers/service-lb-gc-controller.md):
 * `--lb-gc-mode`, `--lb-gc-grace-period` and `--lb-gc-period`. They change nothing unless the controller is
 * named in `--controllers`.
 */
import {
  type CloudControllerConfig,
  defaultLoadBalancerGCConfig,
  LOAD_BALANCER_GC_MODES,
  type LoadBalancerGCConfig,
  loadBalancerGCConfigProblems,
} from '@ccm-kit/controllers';
import { num, type OptionGroup, str } from './option-group.js';

const given = (v: Readonly<Record<string, unknown>>): LoadBalancerGCConfig => ({
  mode: str(v, 'lb-gc-mode') as LoadBalancerGCConfig['mode'],
  gracePeriodMs: num(v, 'lb-gc-grace-period'),
  periodMs: num(v, 'lb-gc-period'),
});

export const serviceLbGcOptions: OptionGroup<Pick<CloudControllerConfig, 'loadBalancerGC'>> = {
  addFlags(fss) {
    fss
      .flagSet('service-lb-gc-controller')
      .string(
        'lb-gc-mode',
        defaultLoadBalancerGCConfig.mode,
        `What service-lb-gc-controller does with a load balancer whose Service is gone: ${LOAD_BALANCER_GC_MODES.join(' or ')}. dry-run only logs it and records an Event; delete deletes it.`,
      )
      .duration(
        'lb-gc-grace-period',
        defaultLoadBalancerGCConfig.gracePeriodMs,
        'How long a load balancer must stay orphaned (seen so by two passes at least this far apart) before service-lb-gc-controller acts on it.',
      )
      .duration(
        'lb-gc-period',
        defaultLoadBalancerGCConfig.periodMs,
        'The period between two passes of service-lb-gc-controller over the cloud load balancers.',
      );
  },
  validate: (v) => loadBalancerGCConfigProblems(given(v)),
  applyTo: (v) => ({ loadBalancerGC: given(v) }),
};

/**
 * `--concurrent-service-syncs`, as k8s.io/cloud-provider `options/servicecontroller.go`. Upstream validates
 * nothing here and starts no worker for a value below 1 (Services are then never reconciled); ccm-kit rejects
 * it when building the configuration, naming the flag (docs/decisions/0020-service-syncs-validated.md).
 */
import type { CloudControllerConfig } from '@ccm-kit/controllers';
import { num, type OptionGroup } from './option-group.js';

export const serviceControllerOptions: OptionGroup<Pick<CloudControllerConfig, 'concurrentServiceSyncs'>> = {
  addFlags(fss) {
    fss
      .flagSet('service-lb-controller')
      .int(
        'concurrent-service-syncs',
        1,
        'The number of services that are allowed to sync concurrently. Larger number = more responsive service management, but more CPU (and network) load',
        { typeName: 'int32' },
      );
  },
  validate(v) {
    const n = num(v, 'concurrent-service-syncs');
    return n >= 1 ? [] : [`--concurrent-service-syncs must be a positive number, got ${n}`];
  },
  applyTo: (v) => ({ concurrentServiceSyncs: num(v, 'concurrent-service-syncs') }),
};

/**
 * The flags upstream keeps on `CloudControllerManagerOptions` itself (k8s.io/cloud-provider `options/options.go`,
 * help section `misc`): the API server connection and `--node-status-update-frequency`.
 */
import type { CloudControllerConfig } from '@ccm-kit/controllers';
import { num, type OptionGroup, positivePeriod, str } from './option-group.js';

/** What the group yields. */
export interface MiscConfig {
  /** `--kubeconfig`: path of the kubeconfig; empty uses the in-cluster configuration. */
  kubeconfig: string;
  /** `--master`: the API server's address, overriding the kubeconfig's. */
  master: string;
  /** `--node-status-update-frequency`, in milliseconds. */
  controllerConfig: Pick<CloudControllerConfig, 'nodeStatusUpdateFrequencyMs'>;
}

export const miscOptions: OptionGroup<MiscConfig> = {
  addFlags(fss) {
    fss
      .flagSet('misc')
      .string('master', '', 'The address of the Kubernetes API server (overrides any value in kubeconfig).')
      .string(
        'kubeconfig',
        '',
        'Path to kubeconfig file with authorization and master location information (the master location can be overridden by the master flag).',
      )
      .duration(
        'node-status-update-frequency',
        5 * 60_000,
        "Specifies how often the controller updates nodes' status.",
        { validate: positivePeriod },
      );
  },
  validate: () => [],
  applyTo: (v) => ({
    kubeconfig: str(v, 'kubeconfig'),
    master: str(v, 'master'),
    controllerConfig: { nodeStatusUpdateFrequencyMs: num(v, 'node-status-update-frequency') },
  }),
};

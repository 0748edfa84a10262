/**
 * The process' cloud budget (`--cloud-api-qps`, `--cloud-api-burst`): made once per manager and installed as
 * the process budget, which every `CloudCallGuard` and the workqueue loop read; the controllers draw from it
 * through the fenced provider (docs/cloud-call-guard.md).
 */
import { type Logger } from '@ccm-kit/runtime';
import { CloudBudget } from '@ccm-kit/runtime/budget';
import { processCloudBudget, setProcessCloudBudget } from '@ccm-kit/runtime/internal';
import type { CloudControllerManagerConfig } from '../options/config.js';

/** The installed budget (undefined without `--cloud-api-qps`) and how to remove it when the manager stops. */
export interface InstalledBudget {
  budget: CloudBudget | undefined;
  uninstall(): void;
}

/** Makes and installs the budget the configuration asks for; installs none (no limit) otherwise. */
export function installCloudBudget(config: CloudControllerManagerConfig, logger: Logger): InstalledBudget {
  const wanted = config.cloudApiBudget;
  if (!wanted) return { budget: undefined, uninstall: () => {} };
  const budget = new CloudBudget({ ...wanted, logger: logger.with({}, 'cloud-budget') });
  setProcessCloudBudget(budget);
  logger.info('Cloud API budget', { qps: wanted.qps, burst: wanted.burst });
  return {
    budget,
    uninstall: () => {
      if (processCloudBudget() === budget) setProcessCloudBudget(undefined);
    },
  };
}

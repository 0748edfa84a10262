/**
 * `--cloud-api-qps` and `--cloud-api-burst`: the process' cloud budget (ccm-kit's own; upstream has no such
 * flags, docs/decisions/0063-cloud-budget.md). Unset (0) means no limit, upstream's behaviour.
 */
import { num, type OptionGroup } from './option-group.js';

/** What the group yields. */
export interface CloudBudgetConfig {
  /** The budget, or `undefined` when `--cloud-api-qps` is unset (no limit). `qps` in calls per second. */
  cloudApiBudget: { qps: number; burst: number } | undefined;
}

export const cloudBudgetOptions: OptionGroup<CloudBudgetConfig> = {
  addFlags(fss) {
    fss
      .flagSet('cloud api budget')
      .float(
        'cloud-api-qps',
        0,
        'Cloud API calls per second the whole process may make, shared by the controllers in priority lanes (user, hosts, periodic) and lowered while the cloud answers 429. 0 sets no limit.',
      )
      .int(
        'cloud-api-burst',
        0,
        'Cloud API calls the process may make at once before --cloud-api-qps applies. 0 means one second of --cloud-api-qps. Needs --cloud-api-qps.',
      );
  },
  validate(v) {
    const qps = num(v, 'cloud-api-qps');
    const burst = num(v, 'cloud-api-burst');
    const problems: string[] = [];
    if (!(qps >= 0))
      problems.push(`--cloud-api-qps must be a number of calls per second > 0 (or 0 for no limit), got ${qps}`);
    if (!(burst >= 0))
      problems.push(`--cloud-api-burst must be an integer >= 1 (or 0 for one second of --cloud-api-qps), got ${burst}`);
    else if (burst > 0 && qps === 0)
      problems.push(
        `--cloud-api-burst=${burst} needs --cloud-api-qps: set the calls per second too (for example --cloud-api-qps=${burst}), or remove --cloud-api-burst`,
      );
    return problems;
  },
  applyTo(v) {
    const qps = num(v, 'cloud-api-qps');
    if (qps === 0) return { cloudApiBudget: undefined };
    const burst = num(v, 'cloud-api-burst');
    return { cloudApiBudget: { qps, burst: burst > 0 ? burst : Math.max(1, Math.ceil(qps)) } };
  },
};

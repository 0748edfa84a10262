/**
 * The process' cloud budget, set by the app from `--cloud-api-qps` / `--cloud-api-burst` and read by every
 * `CloudCallGuard` and the workqueue loop (as the process' lease fence: leader-election/fence.ts).
 */
import type { CloudBudget } from './cloud-budget.js';

let processBudget: CloudBudget | undefined;

/** Sets (or with `undefined` removes) the process' cloud budget. */
export function setProcessCloudBudget(budget: CloudBudget | undefined): void {
  processBudget = budget;
}

/** The process' cloud budget; `undefined` when no limit is configured (upstream behaviour). */
export function processCloudBudget(): CloudBudget | undefined {
  return processBudget;
}

/**
 * `@ccm-kit/runtime/budget`: the process' cloud budget: one token bucket shared by every cloud call, with priority
 * lanes (`CloudBudget`, `withCloudLane`, docs/decisions/0063-cloud-budget.md). Public API, covered by semver.
 */
export {
  type CloudLane,
  CLOUD_LANES,
  withCloudLane,
  currentCloudLane,
  withCloudController,
  currentCloudController,
} from './lane.js';
export { type CloudBudgetCharge, onCloudBudgetCharge } from './charge.js';
export { type CloudBudgetOptions, CloudBudget } from './cloud-budget.js';

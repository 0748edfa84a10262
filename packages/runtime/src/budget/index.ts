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
export { setProcessCloudBudget, processCloudBudget } from './process-budget.js';

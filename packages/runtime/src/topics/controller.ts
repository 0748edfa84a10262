/**
 * `@ccm-kit/runtime/controller`: the reconcile loop every controller runs (`QueueWorker`, `processNextWorkItem`,
 * `runWorkers`; client-go's `processNextWorkItem` pattern). Public API, covered by semver; the package root re-exports
 * the same names.
 */
export {
  processNextWorkItem,
  type ReconcileFunc,
  type ReconcileQueue,
  type ReconcileFailure,
  type QueueWorker,
  runWorkers,
  type RunWorkersOptions,
} from '../controller/index.js';

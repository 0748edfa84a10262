/**
 * `@ccm-kit/runtime/controller`: how every controller runs (`runController`: cache sync, workers, periodic passes,
 * shutdown) and the reconcile loop inside it (`QueueWorker`, `processNextWorkItem`,
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
  runController,
  type RunControllerOptions,
  type ControllerQueue,
  type PeriodicPass,
  type ControllerLogLines,
} from '../controller/index.js';

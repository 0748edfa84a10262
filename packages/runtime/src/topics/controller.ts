/**
 * `@ccm-kit/runtime/controller`: how every controller runs (`runController`: cache sync, workers, periodic passes,
 * shutdown), the reconcile loop inside it (`QueueWorker`, `processNextWorkItem`, `runWorkers`; client-go's
 * `processNextWorkItem` pattern) and the `running_managed_controllers` gauge (`controllerStarted`,
 * `controllerStopped`). Public API, covered by semver.
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
export { controllerStarted, controllerStopped } from '../metrics/controller-manager.js';

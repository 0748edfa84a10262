/**
 * `@ccm-kit/runtime/controller`: how every controller runs (`runController`: cache sync, workers, periodic passes,
 * shutdown), the reconcile loop inside it (`QueueWorker`, `processNextWorkItem`, `runWorkers`; client-go's
 * `processNextWorkItem` pattern) and the `running_managed_controllers` gauge (`controllerStarted`,
 * `controllerStopped`). Public API, covered by semver.
 */
export { processNextWorkItem } from './process-next-work-item.js';
export { type ReconcileFunc, type ReconcileQueue, type ReconcileFailure, type QueueWorker } from './reconciler.js';
export { runWorkers, type RunWorkersOptions } from './run-workers.js';
export {
  runController,
  type RunControllerOptions,
  type ControllerQueue,
  type PeriodicPass,
  type ControllerLogLines,
} from './run-controller.js';
export { controllerStarted, controllerStopped } from '../metrics/controller-manager.js';

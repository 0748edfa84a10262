/**
 * The controller-manager metric `running_managed_controllers{name, manager}` (stability BETA), as
 * component-base `metrics/prometheus/controllers`: 1 while a controller runs, 0 once it has stopped.
 * Set (not incremented) so that a controller that crashes without reporting cannot be counted twice.
 * Registered in {@link metricsRegistry} on first use.
 */
import { Gauge } from 'prom-client';
import { metricsRegistry } from './registry.js';

/** The `manager` label of the cloud-controller-manager. */
export const CLOUD_CONTROLLER_MANAGER = 'cloud-controller-manager';

let gauge: Gauge<'name' | 'manager'> | undefined;

function runningControllers(): Gauge<'name' | 'manager'> {
  gauge ??= new Gauge({
    name: 'running_managed_controllers',
    help: '[BETA] Indicates where instances of a controller are currently running',
    labelNames: ['name', 'manager'],
    registers: [metricsRegistry],
  });
  return gauge;
}

/**
 * Sets `running_managed_controllers{name, manager}` to 1. Upstream controllers pass their legacy short
 * name (`cloud-node`, `cloud-node-lifecycle`, `service`, `route`).
 */
export function controllerStarted(name: string, manager: string = CLOUD_CONTROLLER_MANAGER): void {
  runningControllers().set({ name, manager }, 1);
}

/** Sets `running_managed_controllers{name, manager}` to 0. */
export function controllerStopped(name: string, manager: string = CLOUD_CONTROLLER_MANAGER): void {
  runningControllers().set({ name, manager }, 0);
}

/** Upstream's `ControllerManagerMetrics`: the two calls bound to one manager name. */
export class ControllerManagerMetrics {
  constructor(
    /** The `manager` label, `cloud-controller-manager` unless given. */
    readonly manager: string = CLOUD_CONTROLLER_MANAGER,
  ) {}

  /** Sets `running_managed_controllers{name, manager}` to 1. */
  controllerStarted(name: string): void {
    controllerStarted(name, this.manager);
  }

  /** Sets `running_managed_controllers{name, manager}` to 0. */
  controllerStopped(name: string): void {
    controllerStopped(name, this.manager);
  }
}

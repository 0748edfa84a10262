/**
 * The leader-elected controller group (controller-runtime's `LeaderElection` runnables; upstream `Run`'s
 * `run` function given to `leaderElectAndRun`): on each leadership term, `cloud.initialize()` once, then the
 * lease's controllers with fresh shared informers. The main and the migration lease share one `initialize()`
 * per term.
 */
import type { CloudProvider } from '@ccm-kit/cloud-provider';
import type { ControllerDescriptor } from '@ccm-kit/controllers';
import { type Logger } from '@ccm-kit/runtime';
import { SharedInformerFactory, type TransformFunc } from '@ccm-kit/runtime/informers';
import type { CloudControllerManagerConfig } from '../options/config.js';
import type { ManagerClients } from './clients.js';
import { renamedClients } from './controller-registry.js';
import { runControllers } from './controllers.js';
import type { ManagerHealth } from './health.js';

/** What the group needs. */
export interface LeaderElectedOptions {
  cloud: CloudProvider;
  clients: ManagerClients;
  config: CloudControllerManagerConfig;
  /** Every controller of the manager (for client renames). */
  descriptors: readonly ControllerDescriptor[];
  health: ManagerHealth;
  logger: Logger;
  /** Informer transforms by collection path (`StartOptions.informerTransforms`). */
  informerTransforms?: Readonly<Record<string, TransformFunc<unknown>>>;
}

/** Runs a lease's controllers for one term at a time. */
export class LeaderElectedControllers {
  readonly #o: LeaderElectedOptions;
  readonly #renames: ReadonlyMap<string, readonly [string, string]>;
  #termInit: Promise<void> | undefined;

  constructor(opts: LeaderElectedOptions) {
    this.#o = opts;
    this.#renames = renamedClients(opts.descriptors);
  }

  /** A new leadership term begins: the next run calls `initialize()` again. */
  newTerm(): void {
    this.#termInit = undefined;
  }

  /**
   * Runs `subset` until `signal` aborts (leadership lost or stop). `main`: the main lease's controllers, whose
   * sync makes the replica ready. `onStarted`: called once every controller's init has returned.
   * @throws the error of `initialize()` or of a controller's init (fatal for the manager, as upstream).
   */
  run(
    signal: AbortSignal,
    subset: readonly ControllerDescriptor[],
    main: boolean,
    onStarted?: () => void,
  ): Promise<void> {
    const { cloud, clients, config, health, logger } = this.#o;
    return runControllers(
      {
        cloud,
        clients: clients.controllers,
        initializeCloud: (s) =>
          (this.#termInit ??= Promise.resolve().then(() => cloud.initialize?.(clients.controllers, s))),
        informers: new SharedInformerFactory(clients.root, {
          resyncPeriodMs: resyncPeriod(config.minResyncPeriodMs),
          ...(this.#o.informerTransforms ? { transforms: this.#o.informerTransforms } : {}),
        }),
        descriptors: subset,
        clientRenames: this.#renames,
        selection: config.controllers,
        config: config.controllerConfig,
        health: health.checks,
        startIntervalMs: config.controllerStartIntervalMs,
        logger,
        onSynced: () => {
          if (main) health.setSynced(true);
        },
        onStarted,
      },
      signal,
    );
  }
}

/** Upstream `ResyncPeriod`: random in [min, 2·min), in ms. */
function resyncPeriod(minMs: number): number {
  return minMs > 0 ? Math.floor(minMs * (1 + Math.random())) : 0;
}

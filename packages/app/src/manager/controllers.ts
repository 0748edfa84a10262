/**
 * Starting the enabled controllers on the leader (upstream `startControllers`, upstream `k8s.io/cloud-provider app/controllermanager.go Run`):
 * `cloud.initialize()`, the InformerUser hook, each enabled controller's init in a stable order
 * (upstream uses random map order), health checks, then the shared informers and their sync.
 */
import { type CloudProvider, type ControllerClientBuilder, isInformerUser } from '@ccm-kit/cloud-provider';
import type { CloudControllerConfig, ControllerDescriptor } from '@ccm-kit/controllers';
import { type Logger } from '@ccm-kit/runtime';
import { withCloudController } from '@ccm-kit/runtime/budget';
import { type HealthChecks } from '@ccm-kit/runtime/health';
import { type SharedInformerFactory } from '@ccm-kit/runtime/informers';
import { sleep, whenAborted } from '@ccm-kit/runtime/wait';
import { jitter } from '@ccm-kit/runtime/internal';
import { isControllerEnabled } from '../options/controller-selection.js';
import { forgetCheck, instrumentedCheck } from '../serving/slis.js';
import { markLogged } from './logged-errors.js';

/** Everything {@link runControllers} needs. */
export interface RunControllersOptions {
  cloud: CloudProvider;
  clients: ControllerClientBuilder;
  /**
   * Initializes the provider (default: `cloud.initialize(clients, signal)`). The manager passes a function that
   * runs it once per leadership term when the leader-migration lease runs a second set of controllers.
   */
  initializeCloud?: (signal: AbortSignal) => Promise<void>;
  informers: SharedInformerFactory;
  descriptors: readonly ControllerDescriptor[];
  /**
   * Descriptor name → `[default client name, client name to use]`, for built-ins a vendor re-registered with
   * its own client name: that controller's requests for the default name get the vendor's client.
   */
  clientRenames?: ReadonlyMap<string, readonly [string, string]>;
  /** Alias-resolved `--controllers`. */
  selection: readonly string[];
  config: CloudControllerConfig;
  health: HealthChecks;
  /** `--controller-start-interval` in ms (jittered to [d, 2d)). */
  startIntervalMs: number;
  logger: Logger;
  /** Called once every started informer has synced. */
  onSynced: () => void;
  /** Called once every enabled controller's init has returned, before the informers start. */
  onStarted?: () => void;
}

/**
 * Runs until `outer` aborts (leadership lost or stop). Resolves when every controller has stopped.
 * @throws the error of `initialize()` or of a controller's init: fatal for the manager, as upstream. After an
 *   init error, the controllers started before it are aborted and awaited before the error is thrown.
 */
export async function runControllers(opts: RunControllersOptions, outer: AbortSignal): Promise<void> {
  const { cloud, logger } = opts;
  // Controllers run on a signal of their own, so that an init error can stop the ones already started.
  const own = new AbortController();
  const signal = AbortSignal.any([outer, own.signal]);
  if (opts.initializeCloud) await opts.initializeCloud(signal);
  else await cloud.initialize?.(opts.clients, signal);
  if (isInformerUser(cloud)) cloud.setInformers(opts.informers);

  const disabledByDefault = new Set(opts.descriptors.filter((d) => d.disabledByDefault).map((d) => d.name));
  const running: Promise<void>[] = [];
  const healthNames: string[] = [];
  for (const d of opts.descriptors) {
    if (signal.aborted) break;
    if (!isControllerEnabled(d.name, disabledByDefault, opts.selection)) {
      logger.warn(`${JSON.stringify(d.name)} is disabled`);
      continue;
    }
    logger.v(1).info(`Starting ${JSON.stringify(d.name)}`);
    let result: Awaited<ReturnType<ControllerDescriptor['init']>>;
    try {
      const rename = opts.clientRenames?.get(d.name);
      // Cloud calls the controller makes, also from its workers and timers, are counted for it in the budget.
      result = await withCloudController(d.name, () =>
        d.init({
          cloud,
          clients: rename ? renamingClientBuilder(opts.clients, rename[0], rename[1]) : opts.clients,
          informers: opts.informers,
          config: opts.config,
          signal,
          // The manager's logger: each controller derives its named child (ControllerContext.logger), so the name
          // is not doubled (`cloud-controller-manager/cloud-node-controller`).
          logger,
        }),
      );
    } catch (err) {
      logger.error(err, `Error starting ${JSON.stringify(d.name)}`);
      markLogged(err);
      // Fatal for the manager; the controllers already started are stopped and awaited first, so none
      // keeps writing while the process shuts down.
      own.abort(err);
      await Promise.all(running);
      for (const name of healthNames) {
        opts.health.remove(name);
        forgetCheck(name);
      }
      throw err;
    }
    if (!result.started) {
      logger.warn(`Skipping ${JSON.stringify(d.name)}`, result.reason ? { reason: result.reason } : {});
      continue;
    }
    if (result.done)
      running.push(
        result.done.catch((err) => logger.error(err, 'controller stopped with an error', { controller: d.name })),
      );
    opts.health.remove(d.name);
    opts.health.add(d.name, instrumentedCheck(d.name, result.healthCheck ?? (() => {})), ['healthz', 'livez']);
    healthNames.push(d.name);
    logger.info(`Started ${JSON.stringify(d.name)}`);
    if (opts.startIntervalMs > 0) await sleep(jitter(opts.startIntervalMs, 1.0), signal);
  }

  if (!signal.aborted) opts.onStarted?.();
  opts.informers.start(signal);
  if (await opts.informers.waitForCacheSync(signal)) {
    logger.info('Caches are synced');
    opts.onSynced();
  }
  await whenAborted(signal);
  await Promise.all(running);
  for (const name of healthNames) {
    opts.health.remove(name);
    forgetCheck(name);
  }
}

/** `base`, except that the client name `from` is served as `to`. */
function renamingClientBuilder(base: ControllerClientBuilder, from: string, to: string): ControllerClientBuilder {
  const map = (name: string) => (name === from ? to : name);
  return {
    config: (name) => base.config(map(name)),
    client: (name, api) => base.client(map(name), api),
  };
}

/**
 * `startCloudControllerManager()`: the whole cloud-controller-manager in-process, composed of small units in
 * upstream `app.Run` order: configuration (flags → validated config) → the provider (on every replica) →
 * API clients → health checks → app events → serving (before leader election, so standby replicas answer
 * /healthz and /metrics) → leader migration plan → leader election and the leader-elected controllers →
 * one ordered stop procedure (see `shutdown.ts`). Stops cleanly on `stop()` or the given signal, releasing the lease.
 */
import type { CloudProvider } from '@ccm-kit/cloud-provider';
import type { CloudControllerConfig, ControllerDescriptor } from '@ccm-kit/controllers';
import { createLogger, type Logger, setLogFormat, setLogStreams, setVerbosity } from '@ccm-kit/runtime';
import { type KubeConfigLike } from '@ccm-kit/runtime/client';
import { type HealthChecks } from '@ccm-kit/runtime/health';
import { type TransformFunc } from '@ccm-kit/runtime/informers';
import { loadTracing } from '@ccm-kit/runtime/tracing';
import { loadClientNode, markProcessDeposed } from '@ccm-kit/runtime/internal';
import type { FlagSet } from '../flags/flag-set.js';
import type { CloudControllerManagerConfig } from '../options/config.js';
import { configure, type FlagDefaults } from '../options/configure.js';
import type { WebhookConfig } from '../webhooks/admission.js';
import { type ManagerClients, managerClients } from './clients.js';
import { installCloudBudget } from './cloud-budget.js';
import { fenceLeaderWork } from './fenced-cloud.js';
import { initializeCloud } from './cloud.js';
import { allControllers } from './controller-registry.js';
import { Deposition } from './deposition.js';
import { type ElectionOptions, type ElectionRun, leaderElectAndRun, runWithoutElection } from './election.js';
import { type AppEvents, appEvents } from './events.js';
import { managerHealth } from './health.js';
import { LeaderElectedControllers } from './leader-elected.js';
import { LeaderElectionLostError } from './leader-election-lost.js';
import { FatalErrors, manageLifecycle, StopLatch } from './lifecycle.js';
import { type MigrationPlan, planLeaderMigration } from './migration-plan.js';
import { type Serving, startServing } from './serving.js';
import { type ManagerParts, stopManager } from './shutdown.js';
import { managerUserAgent } from './version.js';

/** Options of {@link startCloudControllerManager}. */
export interface StartOptions {
  /** Command-line arguments without `node` and the script (default: none). */
  argv?: readonly string[];
  /** The provider, bypassing the registry and `--cloud-provider`/`--cloud-config`. */
  cloud?: CloudProvider;
  /** The API server connection, bypassing `--kubeconfig`/`--master`/in-cluster. */
  kubeConfig?: KubeConfigLike;
  /** Vendor controllers, added to the four built-ins and selected with `--controllers`. */
  controllers?: readonly ControllerDescriptor[];
  /** Vendor flag sets, parsed with the CCM's flags; their values appear in `config.flags`. */
  flagSets?: readonly FlagSet[];
  /** Flag defaults set in code, by flag name (for example `{ 'cloud-provider': 'mycloud' }`); flags still win. */
  defaults?: FlagDefaults;
  /**
   * Options beyond upstream, off by default: `nodeOwnership` (Nodes it rejects — for example a foreign
   * providerID prefix — are ignored by every controller) and `loadBalancerClass` (serve that class instead of
   * Services without one).
   */
  controllerOptions?: Pick<CloudControllerConfig, 'nodeOwnership' | 'loadBalancerClass'>;
  /**
   * Vendor admission webhooks by name (upstream `RegisterWebhook`), selected with `--webhooks` and served on
   * `--webhook-secure-port` when the gate `CloudControllerManagerWebhook` is on.
   */
  webhooks?: Readonly<Record<string, WebhookConfig>>;
  /**
   * The vendor's command name (default `cloud-controller-manager`): first token of the User-Agent (so the
   * field manager the API server records in `managedFields`, as for a Go binary named so), `--help` and `--version`.
   */
  commandName?: string;
  /** The vendor's version (for example `1.4.2`): User-Agent and `--version`. Default: ccm-kit's version. */
  version?: string;
  /**
   * How long a stop waits for the provider's `shutdown` hook, in ms (default 5 000). The hook runs after the
   * controllers stopped; past this bound the manager goes on (and the hook's signal aborts).
   */
  providerShutdownTimeoutMs?: number;
  /** Stops the manager when aborted (as `stop()`). */
  signal?: AbortSignal;
  /**
   * Informer transforms by collection path, replacing the defaults (managedFields stripped; for Nodes also
   * `status.images`, docs/operations.md, decision 0033). For example `{ '/api/v1/nodes': identityTransform }`
   * when the provider reads a Node's images.
   */
  informerTransforms?: Readonly<Record<string, TransformFunc<unknown>>>;
}

/** A running manager. */
export interface CloudControllerManager {
  /** The configuration the manager runs with, after flags, defaults and validation. */
  readonly config: CloudControllerManagerConfig;
  /** The provider the manager built and initialised (`initialize` has run). */
  readonly cloud: CloudProvider;
  /** The bound secure port, or undefined when `--secure-port=0`. */
  readonly securePort: number | undefined;
  /** The bound webhook port, or undefined when webhooks are not served. */
  readonly webhookPort: number | undefined;
  /** The manager's health checks, served at `/healthz` (and `/healthz/<name>`) on the secure port. */
  readonly health: HealthChecks;
  /** True while this replica leads (always true without leader election once controllers run). */
  isLeader(): boolean;
  /** Resolves after a clean stop; rejects with the fatal error (for example leadership lost, a controller init error). */
  readonly done: Promise<void>;
  /** Stops controllers, waits for the provider's `shutdown` hook, releases the lease, closes the server. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a cloud-controller-manager in this process.
 * @throws FlagError / ConfigError for bad flags, StartupError for provider, kubeconfig or serving problems.
 */
export async function startCloudControllerManager(opts: StartOptions = {}): Promise<CloudControllerManager> {
  const descriptors = allControllers(opts.controllers);
  const config = configure(
    opts.argv ?? [],
    descriptors,
    opts.flagSets,
    opts.defaults,
    Object.keys(opts.webhooks ?? {}),
  );
  return startConfiguredManager(opts, config, descriptors);
}

/**
 * {@link startCloudControllerManager} after its flags were parsed: `config` is `configure`'s answer for `opts.argv`
 * and `descriptors`, those of `allControllers(opts.controllers)`. `runCloudControllerManager` parses the flags
 * before it loads this module, so that `--help` and flag errors do not load the manager.
 * @throws StartupError for provider, kubeconfig or serving problems.
 */
export async function startConfiguredManager(
  opts: StartOptions,
  config: CloudControllerManagerConfig,
  descriptors: readonly ControllerDescriptor[],
): Promise<CloudControllerManager> {
  const latch = new StopLatch(opts.signal);
  const webhooks = opts.webhooks ?? {};
  Object.assign(config.controllerConfig, opts.controllerOptions ?? {});
  const logger = startLogging(config);
  const { name, cloudConfigFile } = config.cloudProvider;
  // The provider every unit below uses: wrappers around it (for example a leader fence) apply here.
  const cloud = await initializeCloud(name, cloudConfigFile, config.allowUntaggedCloud, logger, opts.cloud);
  // Before cloud.initialize() runs (on the leader), so the provider's own guarded calls draw from it too.
  const cloudBudget = installCloudBudget(config, logger);
  const parts: ManagerParts = { cloud, providerShutdownTimeoutMs: opts.providerShutdownTimeoutMs };
  let election: ElectionRun | undefined;
  const health = managerHealth(config.leaderElection.leaderElect, () => election?.elector);
  let clients!: ManagerClients, events!: AppEvents, serving!: Serving, plan!: MigrationPlan;
  try {
    const userAgent = managerUserAgent(opts.commandName, opts.version);
    // A bundled binary has client-node's typed clients only through loadClientNode() (decision 0413).
    if (config.useServiceAccountCredentials) await loadClientNode();
    parts.clients = clients = managerClients(config, opts.kubeConfig, userAgent, logger);
    parts.events = events = appEvents(clients.root, logger);
    const { kubeConfig } = clients;
    parts.serving = serving = await startServing({ config, kubeConfig, health: health.checks, webhooks, logger });
    plan = await planLeaderMigration(config, descriptors, logger);
  } catch (err) {
    await stopManager({ ...parts, eventFlushTimeoutMs: 0 }, logger);
    cloudBudget.uninstall();
    throw err;
  }

  const fatal = new FatalErrors(logger);
  // Spans only when the binary registered an OpenTelemetry tracer provider before starting (docs/tracing.md).
  if (await loadTracing())
    logger.info(
      'Tracing: an OpenTelemetry tracer provider is registered; reconciles, cloud calls and API writes are traced',
    );
  // Lease fencing (docs/decisions/0050-lease-fencing.md): the leader's controllers get a provider and clients that
  // refuse cloud calls and API writes while it cannot prove it holds the lease; the first refusal while leading
  // deposes it: the controllers stop and the lease counts as lost (docs/decisions/0052-fenced-leader-exits.md).
  const deposition = new Deposition(
    () => election?.elector,
    () => election?.isLeader() ?? false,
    (lease) => {
      markProcessDeposed();
      logger.info(
        "The lease fence refused this leader's work: it has not renewed its lease within the renew deadline; stopping",
        { lease },
      );
      fatal.fail(new LeaderElectionLostError());
    },
  );
  const leaderCloud = fenceLeaderWork(cloud, clients.factories, deposition, cloudBudget.budget);
  const controllers = new LeaderElectedControllers({
    cloud: leaderCloud,
    clients,
    config,
    descriptors,
    health,
    logger,
    ...(opts.informerTransforms ? { informerTransforms: opts.informerTransforms } : {}),
  });
  const electionOptions: ElectionOptions = {
    ...{ leaderElection: config.leaderElection, clients, recorder: events.recorder, controllers, plan },
    ...{ health, logger, stop: latch.signal, deposed: deposition.signal, fail: fatal.fail },
  };
  if (latch.signal.aborted) logger.info('Stop requested during start-up; not starting controllers');
  else if (config.leaderElection.leaderElect) election = leaderElectAndRun(electionOptions);
  else election = runWithoutElection(electionOptions);

  const lifecycle = manageLifecycle({ latch, outer: opts.signal, fatal, election, parts, logger });
  const { stop } = lifecycle;
  const done = lifecycle.done.finally(() => cloudBudget.uninstall());
  // A start error (the provider's initialize(), a controller's init) rejects this call, not only `done`.
  if (election) {
    try {
      await Promise.race([election.started, fatal.rejected]);
    } catch (err) {
      await done.catch(() => {});
      throw err;
    }
  }
  return {
    ...{ config, cloud, health: health.checks, done, stop },
    ...{ securePort: serving.securePort, webhookPort: serving.webhookPort },
    isLeader: () => election?.isLeader() ?? false,
  };
}

/** Applies `--v` and `--logging-format` and logs the start. */
function startLogging(config: CloudControllerManagerConfig): Logger {
  setVerbosity(config.verbosity);
  setLogFormat(config.loggingFormat);
  setLogStreams({
    splitStream: config.splitStream,
    infoBufferSize: config.infoBufferSize,
    flushFrequencyMs: config.flushFrequencyMs,
  });
  const logger = createLogger('cloud-controller-manager');
  logger.info('Starting cloud-controller-manager', { provider: config.cloudProvider.name });
  if (config.vmodule) {
    logger.warn('--vmodule is accepted but not applied: ccm-kit logs at one verbosity for every module (use --v)', {
      vmodule: config.vmodule,
    });
  }
  return logger;
}

/**
 * `startCloudControllerManager()`: the whole cloud-controller-manager in-process, as upstream's
 * `app.Run` (reference §4.5): flags → config → provider (on every replica) → secure serving (before
 * leader election, so standby replicas answer /healthz and /metrics) → leader election → on the leader:
 * `initialize`, controllers, informers. Stops cleanly on `stop()` or the given signal, releasing the lease.
 */
import type { CloudProvider, ControllerClientBuilder } from '@ccm-kit/cloud-provider';
import {
  builtInControllers,
  type CloudControllerConfig,
  type ControllerDescriptor,
} from '@ccm-kit/controllers';
import {
  coreV1EventSink,
  createClientFactory,
  createLogger,
  EventBroadcaster,
  HealthChecks,
  type LeaderCallbacks,
  LeaderElector,
  type Logger,
  leaderElectionHealthCheck,
  pingCheck,
  loadKubeConfig,
  SharedInformerFactory,
  setLogFormat,
  setVerbosity,
} from '@ccm-kit/runtime';
import { CoordinationV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { type FlagSet, parseFlags } from '../flags/flag-set.js';
import { cloudControllerManagerFlagSets } from '../options/ccm-flags.js';
import { buildConfig, type CloudControllerManagerConfig } from '../options/config.js';
import { delegatedAuthFromConfig } from '../serving/delegated-auth-config.js';
import { serviceRoutes } from '../serving/routes.js';
import { type RunningServer, startSecureServer } from '../serving/secure-server.js';
import { servingTlsOptions } from '../serving/serving-options.js';
import { instrumentedCheck } from '../serving/slis.js';
import { initializeCloud } from './cloud.js';
import { StartupError } from '../errors.js';
import { type WebhookConfig } from '../webhooks/admission.js';
import { serveWebhooks } from '../webhooks/serve-webhooks.js';
import { runControllers } from './controllers.js';
import {
  defaultLeaderMigrationConfig,
  type LeaderMigrationConfig,
  type MigrationPlacement,
  migrationPlacement,
  readLeaderMigrationConfig,
} from './leader-migration.js';
import { anonymousKubeConfig, ServiceAccountClientBuilder } from './service-account-clients.js';
import { managerUserAgent } from './version.js';

/** Options of {@link startCloudControllerManager}. */
export interface StartOptions {
  /** Command-line arguments without `node` and the script (default: none). */
  argv?: readonly string[];
  /** The provider, bypassing the registry and `--cloud-provider`/`--cloud-config`. */
  cloud?: CloudProvider;
  /** The API server connection, bypassing `--kubeconfig`/`--master`/in-cluster. */
  kubeConfig?: KubeConfig;
  /** Vendor controllers, added to the four built-ins and selected with `--controllers`. */
  controllers?: readonly ControllerDescriptor[];
  /** Vendor flag sets, parsed with the CCM's flags; their values appear in `config.flags`. */
  flagSets?: readonly FlagSet[];
  /** Flag defaults set in code, by flag name (for example `{ 'cloud-provider': 'mycloud' }`); flags still win. */
  defaults?: Readonly<Record<string, string | number | boolean | string[]>>;
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
  /** Stops the manager when aborted (as `stop()`). */
  signal?: AbortSignal;
}

/** A running manager. */
export interface CloudControllerManager {
  readonly config: CloudControllerManagerConfig;
  readonly cloud: CloudProvider;
  /** The bound secure port, or undefined when `--secure-port=0`. */
  readonly securePort: number | undefined;
  /** The bound webhook port, or undefined when webhooks are not served. */
  readonly webhookPort: number | undefined;
  readonly health: HealthChecks;
  /** True while this replica leads (always true without leader election once controllers run). */
  isLeader(): boolean;
  /** Resolves after a clean stop; rejects with the fatal error (for example leadership lost, a controller init error). */
  readonly done: Promise<void>;
  /** Stops controllers, releases the lease, closes the server. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Leadership was lost while running: upstream exits with status 1 (`leaderelection lost`, or
 * `migration leaderelection lost` for the leader-migration lease).
 */
export class LeaderElectionLostError extends Error {
  constructor(message = 'leaderelection lost') {
    super(message);
    this.name = 'LeaderElectionLostError';
  }
}

/** How long `stop()` waits for controllers to finish before closing anyway, in ms. */
const STOP_TIMEOUT_MS = 10_000;

/**
 * The built-in controllers plus the vendor's. A vendor descriptor with a built-in's name **replaces** that
 * built-in (upstream vendors overwrite `DefaultInitFuncConstructors` entries, for example to give the built-ins
 * their own client names, §4.11); two vendor descriptors with one name are an error.
 * @throws StartupError `controller "<name>" is registered twice`.
 */
export function allControllers(extra: readonly ControllerDescriptor[] = []): ControllerDescriptor[] {
  const all: ControllerDescriptor[] = [...builtInControllers];
  const seen = new Set<string>();
  for (const d of extra) {
    if (seen.has(d.name)) throw new StartupError(`controller ${JSON.stringify(d.name)} is registered twice`);
    seen.add(d.name);
    const i = all.findIndex((b) => b.name === d.name);
    // A replacement without aliases keeps the built-in's (upstream's alias map is separate from the constructors).
    if (i >= 0) all[i] = d.aliases ? d : { ...d, aliases: all[i]!.aliases };
    else all.push(d);
  }
  return all;
}

/**
 * For built-ins a vendor replaced with another client name: descriptor name → `[built-in client name, vendor
 * client name]`. The built-in init functions ask for their default client name; the manager maps it.
 */
function renamedClients(descriptors: readonly ControllerDescriptor[]): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const b of builtInControllers) {
    const d = descriptors.find((x) => x.name === b.name);
    if (d && d !== b && d.clientName && d.clientName !== b.clientName) out.set(d.name, [b.clientName, d.clientName]);
  }
  return out;
}

/** The alias map of every controller (`alias` → canonical name). */
export function controllerAliases(descriptors: readonly ControllerDescriptor[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of descriptors) for (const a of d.aliases ?? []) out[a] = d.name;
  return out;
}

/** Parses flags (with code defaults) and builds the validated configuration. */
export function configure(
  argv: readonly string[],
  descriptors: readonly ControllerDescriptor[],
  flagSets: readonly FlagSet[] = [],
  defaults: StartOptions['defaults'] = {},
  webhookNames: readonly string[] = [],
): CloudControllerManagerConfig {
  const sets = [...cloudControllerManagerFlagSets(), ...flagSets];
  for (const set of sets) {
    for (const [name, value] of Object.entries(defaults)) {
      const def = set.flags.get(name);
      if (def) def.default = value as never;
    }
  }
  const parsed = parseFlags(argv, sets);
  if (parsed.args.length > 0) {
    throw new StartupError(
      `"cloud-controller-manager" does not take any arguments, got [${parsed.args.map((a) => JSON.stringify(a)).join(' ')}]`,
    );
  }
  const config = buildConfig(parsed, {
    controllers: descriptors.map((d) => d.name).sort(),
    controllerAliases: controllerAliases(descriptors),
    webhooks: [...webhookNames].sort(),
  });
  for (const w of parsed.warnings) createLogger('flags').warn(w);
  return config;
}

/**
 * Starts a cloud-controller-manager in this process.
 * @throws FlagError / ConfigError for bad flags, StartupError for provider, kubeconfig or serving problems.
 */
export async function startCloudControllerManager(opts: StartOptions = {}): Promise<CloudControllerManager> {
  // A stop asked for while starting (SIGTERM during a slow provider factory or client-CA lookup) must not be
  // lost: it is latched here and honoured before leader election or any controller starts.
  const stopController = new AbortController();
  const requestStop = () => stopController.abort();
  if (opts.signal?.aborted) requestStop();
  else opts.signal?.addEventListener('abort', requestStop, { once: true });
  const descriptors = allControllers(opts.controllers);
  const config = configure(opts.argv ?? [], descriptors, opts.flagSets, opts.defaults, Object.keys(opts.webhooks ?? {}));
  Object.assign(config.controllerConfig, opts.controllerOptions ?? {});
  setVerbosity(config.verbosity);
  setLogFormat(config.loggingFormat);
  const logger = createLogger('cloud-controller-manager');
  logger.info('Starting cloud-controller-manager', { provider: config.cloudProvider.name });
  if (config.vmodule) {
    logger.warn('--vmodule is accepted but not applied: ccm-kit logs at one verbosity for every module (use --v)', {
      vmodule: config.vmodule,
    });
  }

  const cloud = await initializeCloud(
    config.cloudProvider.name,
    config.cloudProvider.cloudConfigFile,
    config.allowUntaggedCloud,
    logger,
    opts.cloud,
  );

  let kubeConfig: KubeConfig;
  try {
    kubeConfig = opts.kubeConfig ?? loadKubeConfig({ kubeconfig: config.kubeconfig, master: config.master });
  } catch (err) {
    const msg = (err as Error).message;
    throw new StartupError(config.kubeconfig && !msg.startsWith('--') ? `--kubeconfig: ${msg}` : msg, { cause: err });
  }
  if (config.kubeApiContentType !== 'application/json') {
    logger.v(2).info('client-node speaks JSON only; --kube-api-content-type is ignored', {
      contentType: config.kubeApiContentType,
    });
  }
  const clients = createClientFactory({
    kubeConfig,
    qps: config.kubeApiQps,
    burst: config.kubeApiBurst,
    userAgent: managerUserAgent(),
  });
  // --use-service-account-credentials: controllers (and initialize()) act as their own service accounts; shared
  // informers, leader election and events keep the manager's identity, as upstream's root client builder.
  const saClients = config.useServiceAccountCredentials
    ? createClientFactory({
        kubeConfig: anonymousKubeConfig(kubeConfig),
        qps: config.kubeApiQps,
        burst: config.kubeApiBurst,
        userAgent: managerUserAgent(),
      })
    : undefined;
  const controllerClients: ControllerClientBuilder = saClients
    ? new ServiceAccountClientBuilder({ root: clients, anonymous: saClients, logger })
    : clients;

  // Every check is instrumented for /metrics/slis.
  const health = new HealthChecks({ ping: false });
  health.add('ping', instrumentedCheck('ping', pingCheck));
  let synced = false;
  let elector: LeaderElector | undefined;
  const leaderElect = config.leaderElection.leaderElect;
  if (leaderElect)
    health.add(
      'leaderElection',
      instrumentedCheck('leaderElection', leaderElectionHealthCheck(() => elector)),
      ['healthz', 'livez'],
    );
  health.add(
    'controllers-synced',
    instrumentedCheck(
      'controllers-synced',
      () => {
        if (leaderElect && !elector?.isLeader()) return; // a standby replica is ready to take over
        if (!synced) throw new Error('informer caches have not synced');
      },
      'readyz',
    ),
    ['readyz'],
  );

  // The app-level recorder (component cloud-controller-manager): logged and sent to the API, as upstream.
  const broadcaster = new EventBroadcaster({ logger });
  broadcaster.startStructuredLogging(0, logger);
  broadcaster.startRecordingToSink(coreV1EventSink(clients.client('cloud-controller-manager', CoreV1Api)));
  const recorder = broadcaster.newRecorder('cloud-controller-manager');

  let server: RunningServer | undefined;
  let webhookServer: RunningServer | undefined;
  const closeServing = async () => {
    await server?.close();
    await webhookServer?.close();
    await clients.close();
    await saClients?.close();
    await broadcaster.shutdown(0);
  };
  try {
    webhookServer = await serveWebhooks(config, opts.webhooks ?? {}, logger);
    server = await serve(config, kubeConfig, health, logger);
  } catch (err) {
    await closeServing();
    throw err instanceof StartupError
      ? err
      : new StartupError(`secure serving: ${(err as Error).message}`, { cause: err });
  }

  // Leader migration (upstream: only with --leader-elect and --enable-leader-migration).
  let migration: LeaderMigrationConfig | undefined;
  if (config.leaderMigration.enabled && !leaderElect) {
    logger.warn('--enable-leader-migration has no effect without --leader-elect');
  } else if (config.leaderMigration.enabled) {
    try {
      migration = config.leaderMigration.configFile
        ? await readLeaderMigrationConfig(config.leaderMigration.configFile)
        : defaultLeaderMigrationConfig();
    } catch (err) {
      await closeServing();
      throw new StartupError((err as Error).message, { cause: err });
    }
    warnUnmatchedMigrationNames(migration, descriptors, logger);
  }
  const placed = (p: MigrationPlacement) =>
    migration ? descriptors.filter((d) => migrationPlacement(migration, d.name) === p) : descriptors;

  // cloud.initialize() runs once per leadership term, shared by the main and the migration lease's controllers.
  let termInit: Promise<void> | undefined;
  const initializeOnce = (signal: AbortSignal) =>
    (termInit ??= Promise.resolve().then(() => cloud.initialize?.(controllerClients, signal)));

  const runOnLeader = (signal: AbortSignal, subset: readonly ControllerDescriptor[], main: boolean) =>
    runControllers(
      {
        cloud,
        clients: controllerClients,
        initializeCloud: initializeOnce,
        informers: new SharedInformerFactory(clients, {
          resyncPeriodMs: resyncPeriod(config.minResyncPeriodMs),
        }),
        descriptors: subset,
        clientRenames: renamedClients(descriptors),
        selection: config.controllers,
        config: config.controllerConfig,
        health,
        startIntervalMs: config.controllerStartIntervalMs,
        logger,
        onSynced: () => {
          if (main) synced = true;
        },
      },
      signal,
    );

  let stopping = false;
  let fatal: ((err: unknown) => void) | undefined;
  const fatalPromise = new Promise<never>((_, reject) => {
    fatal = reject;
  });
  fatalPromise.catch(() => {});
  const fail = (err: unknown) => {
    if (stopping) return;
    logger.error(err, 'fatal error');
    fatal?.(err);
  };

  let leading = !leaderElect;
  let work: Promise<unknown>;
  // The controllers of the current term(s); stop() waits for them even when an election has already ended.
  let leaderWork: Promise<void> = Promise.resolve();
  let migrationWork: Promise<void> = Promise.resolve();
  if (stopController.signal.aborted) {
    logger.info('Stop requested during start-up; not starting controllers');
    leading = false;
    work = Promise.resolve();
  } else if (leaderElect) {
    const le = config.leaderElection;
    const candidate = (
      leaseName: string,
      identity: string | undefined,
      callbacks: LeaderCallbacks,
    ): LeaderElector =>
      new LeaderElector({
        client: clients.client('leader-election', CoordinationV1Api),
        lock: { namespace: le.resourceNamespace, name: leaseName },
        ...(identity ? { identity } : {}),
        leaseDurationMs: le.leaseDurationMs,
        renewDeadlineMs: le.renewDeadlineMs,
        retryPeriodMs: le.retryPeriodMs,
        releaseOnCancel: true,
        recordEvent: (message) => {
          // Leader-election events are about the Lease, so they land in its namespace.
          recorder.event(
            {
              apiVersion: 'coordination.k8s.io/v1',
              kind: 'Lease',
              metadata: { name: leaseName, namespace: le.resourceNamespace },
            },
            'Normal',
            'LeaderElection',
            message,
          );
        },
        callbacks,
      });
    let migrationReady!: () => void;
    const migrationReadyPromise = new Promise<void>((r) => {
      migrationReady = r;
    });
    const main = candidate(le.resourceName, undefined, {
      onStartedLeading: async (signal) => {
        leading = true;
        termInit = undefined;
        if (migration) {
          logger.info('leader migration: starting main controllers.');
          migrationReady();
        }
        leaderWork = runOnLeader(signal, placed('non-migrated'), true).catch(fail);
        await leaderWork;
      },
      onStoppedLeading: () => {
        leading = false;
        synced = false;
        if (!stopping) fail(new LeaderElectionLostError());
      },
      onNewLeader: (identity) => logger.info('new leader elected', { identity }),
    });
    elector = main;
    const runs: Promise<void>[] = [main.run(stopController.signal)];
    if (migration) {
      const m = migration;
      runs.push(
        (async () => {
          // As upstream: the migration lease is attempted only once the main lease is held.
          await Promise.race([
            migrationReadyPromise,
            new Promise<void>((r) => stopController.signal.addEventListener('abort', () => r(), { once: true })),
          ]);
          if (stopController.signal.aborted) return;
          await candidate(m.leaderName, main.identity, {
            onStartedLeading: async (signal) => {
              logger.info('leader migration: starting migrated controllers.');
              migrationWork = runOnLeader(signal, placed('migrated'), false).catch(fail);
              await migrationWork;
            },
            onStoppedLeading: () => {
              if (!stopping) fail(new LeaderElectionLostError('migration leaderelection lost'));
            },
          }).run(stopController.signal);
        })(),
      );
    }
    work = Promise.all(runs);
  } else {
    work = leaderWork = runOnLeader(stopController.signal, descriptors, true).catch(fail);
  }

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      stopping = true;
      logger.info('Stopping cloud-controller-manager');
      stopController.abort();
      await Promise.race([
        Promise.all([work, leaderWork, migrationWork]),
        new Promise((r) => setTimeout(r, STOP_TIMEOUT_MS).unref()),
      ]);
      await server?.close();
      await webhookServer?.close();
      await broadcaster.shutdown();
      await clients.close();
      await saClients?.close();
      logger.info('Stopped cloud-controller-manager');
    })();
    return stopped;
  };
  opts.signal?.removeEventListener('abort', requestStop);
  if (stopController.signal.aborted) void stop();
  else opts.signal?.addEventListener('abort', () => void stop(), { once: true });

  const done = (async () => {
    try {
      await Promise.race([fatalPromise, work]);
      if (!stopping) await fatalPromise; // the election ended by itself: wait for stop or a fatal error
    } catch (err) {
      await stop();
      throw err;
    }
    await stop();
  })();

  // Callers that never await `done` must not see an unhandled rejection; awaiting it still rejects.
  done.catch(() => {});
  return {
    config,
    cloud,
    securePort: server?.port,
    webhookPort: webhookServer?.port,
    health,
    isLeader: () => leading,
    done,
    stop,
  };
}

/** Upstream `ResyncPeriod`: random in [min, 2·min), in ms. */
function resyncPeriod(minMs: number): number {
  return minMs > 0 ? Math.floor(minMs * (1 + Math.random())) : 0;
}

async function serve(
  config: CloudControllerManagerConfig,
  kubeConfig: KubeConfig,
  health: HealthChecks,
  logger: Logger,
): Promise<RunningServer | undefined> {
  const s = config.secureServing;
  if (s.securePort === 0) {
    logger.info('Secure serving is off (--secure-port=0)');
    return undefined;
  }
  const tls = await servingTlsOptions(s, '');
  const { auth, clientCaPem } = await delegatedAuthFromConfig(config.auth, kubeConfig, logger);
  return startSecureServer({
    ...tls,
    clientCaPem,
    auth,
    routes: serviceRoutes(health, config),
    logger,
  });
}


/**
 * Upstream matches migration names against canonical controller names only, so a KCM-style name such as
 * `service-controller` moves nothing; say so once, naming the controller it probably meant.
 */
function warnUnmatchedMigrationNames(
  migration: LeaderMigrationConfig,
  descriptors: readonly ControllerDescriptor[],
  logger: Logger,
): void {
  const names = new Set(descriptors.map((d) => d.name));
  for (const l of migration.controllerLeaders) {
    if (names.has(l.name)) continue;
    const stem = l.name.replace(/-controller$/, '');
    const guess = descriptors.find((d) => d.aliases?.includes(stem) || d.name.endsWith(`-${l.name}`));
    logger.warn(
      `leader migration: ${JSON.stringify(l.name)} names no controller of this manager, so it stays under the main lease` +
        (guess ? ` (the cloud-controller-manager calls it ${JSON.stringify(guess.name)})` : ''),
    );
  }
}

/**
 * The cloud controllers embedded in a binary of the vendor's own (an existing operator, say), without
 * `runCloudControllerManager()`: the path of the design card — `registerCloudProvider(name, factory)` once, then
 * `initCloudProvider(name, configFile)` in the vendor's own start-up — with the runtime's pieces the manager is
 * built from, in the order upstream's `k8s.io/cloud-provider/app/controllermanager.go` `Run` uses them:
 *
 * 1. the provider from the registry (every replica, before the election, so a bad config fails at once);
 * 2. API clients (`createClientFactory`) and a leader election on a Lease (`runLeaderElection`,
 *    `releaseOnCancel`: a replica that stops hands the Lease over at once instead of after its duration);
 * 3. on winning: `cloud.initialize`, shared informers, each chosen controller's `init`, then the informers
 *    started and synced — all under the leader's signal, which aborts when leadership is lost;
 * 4. on stop (the caller's signal, e.g. SIGTERM): the controllers stop, the Lease is released, and the provider's
 *    `shutdown` hook runs last, bounded.
 *
 * docs/embedded.md walks through it; test/embedded.int.test.ts runs the binary against a real API server.
 */
import { initCloudProvider, isInformerUser } from '@ccm-kit/cloud-provider';
import {
  builtInControllers,
  type CloudControllerConfig,
  type ControllerDescriptor,
  defaultCloudControllerConfig,
} from '@ccm-kit/controllers';
import { createLogger } from '@ccm-kit/runtime';
import { createClientFactory, type KubeConfigLike } from '@ccm-kit/runtime/client';
import { SharedInformerFactory } from '@ccm-kit/runtime/informers';
import { runLeaderElection } from '@ccm-kit/runtime/leader-election';
import { CoordinationV1Api } from '@kubernetes/client-node';

/** Options of {@link runEmbeddedControllers}; durations in milliseconds. */
export interface EmbeddedOptions {
  /** The registered provider name and its config file (`initCloudProvider(name, configFile)`). */
  provider: { name: string; configFile?: string };
  /** Where the API server is. */
  kubeConfig: KubeConfigLike;
  /** The controllers to run, by name (default: every built-in not disabled by default). */
  controllers?: readonly string[];
  /** Settings over the upstream defaults (`defaultCloudControllerConfig`). */
  config?: Partial<CloudControllerConfig>;
  /** The Lease (default `kube-system/<provider>-embedded-controllers`) and this replica's identity. */
  lease?: { namespace?: string; name?: string; identity?: string };
  /** How long the provider's `shutdown` hook may take (default 5000). */
  providerShutdownTimeoutMs?: number;
  /** Stops everything: the controllers, the election (the Lease is released), then the provider. */
  signal: AbortSignal;
}

/** The chosen built-in controllers. @throws Error naming an unknown controller and the known ones. */
export function chooseControllers(names: readonly string[] | undefined): ControllerDescriptor[] {
  if (names === undefined) return builtInControllers.filter((d) => !d.disabledByDefault);
  return names.map((name) => {
    const d = builtInControllers.find((c) => c.name === name || c.aliases?.includes(name));
    if (!d)
      throw new Error(`unknown controller "${name}" (known: ${builtInControllers.map((c) => c.name).join(', ')})`);
    return d;
  });
}

/**
 * Runs the chosen cloud controllers under leader election until `signal` aborts; resolves after the Lease was
 * released and the provider shut down.
 * @throws Error when the provider cannot be initialized (unknown name, bad config) or a controller is unknown —
 *   before anything is started.
 */
export async function runEmbeddedControllers(o: EmbeddedOptions): Promise<void> {
  const log = createLogger('embedded');
  const controllers = chooseControllers(o.controllers);
  const cloud = await initCloudProvider(o.provider.name, o.provider.configFile);
  if (!cloud) throw new Error(`--cloud-provider=${o.provider.name} names no provider`);
  const clients = createClientFactory({ kubeConfig: o.kubeConfig });
  const config = { ...defaultCloudControllerConfig, ...o.config };

  await runLeaderElection({
    client: clients.client('leader-election', CoordinationV1Api),
    lock: {
      namespace: o.lease?.namespace ?? 'kube-system',
      name: o.lease?.name ?? `${o.provider.name}-embedded-controllers`,
    },
    ...(o.lease?.identity ? { identity: o.lease.identity } : {}),
    releaseOnCancel: true,
    signal: o.signal,
    callbacks: {
      onStartedLeading: async (leading: AbortSignal) => {
        log.info('Leading: starting the cloud controllers', { controllers: controllers.map((c) => c.name) });
        await cloud.initialize?.(clients, leading);
        // One informer factory per term: a new leader starts from a fresh cache.
        const informers = new SharedInformerFactory(clients);
        if (isInformerUser(cloud)) cloud.setInformers(informers);
        const done: Promise<void>[] = [];
        for (const controller of controllers) {
          const r = await controller.init({
            cloud,
            clients,
            informers,
            config,
            signal: leading,
            logger: log.with({}, controller.name),
          });
          if (r.started) done.push(r.done ?? Promise.resolve());
          else log.info('Skipping controller', { controller: controller.name, reason: r.reason });
        }
        informers.start(leading);
        if (await informers.waitForCacheSync(leading)) log.info('Caches synced; the controllers run');
        await Promise.all(done);
        log.info('The cloud controllers stopped');
      },
      onStoppedLeading: () => log.info('Stopped leading'),
    },
  });

  // After the controllers stopped and the Lease was released: the provider's own cleanup, bounded.
  const timeout = AbortSignal.timeout(o.providerShutdownTimeoutMs ?? 5_000);
  await Promise.race([
    Promise.resolve(cloud.shutdown?.(timeout)),
    new Promise<void>((r) => timeout.addEventListener('abort', () => r(), { once: true })),
  ]);
}

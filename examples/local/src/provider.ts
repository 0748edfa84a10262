/**
 * The `local` cloud provider: a cloud that runs entirely on this machine.
 * - InstancesV2 from a watched inventory file (`inventory.ts`, `instances.ts`).
 * - LoadBalancer from address pools, recorded on the Services, served by in-process TCP proxies
 *   (`load-balancer.ts`, `proxy/`), or only allocated (`dataPlane: none`).
 *
 * Two phases, as upstream: the factory ({@link LocalCloud.create}) runs on every replica and only reads the
 * configuration and the inventory; {@link LocalCloud.initialize} runs on the elected leader and creates the
 * Kubernetes client (for the allocation annotations and Events). Every write therefore happens on the leader.
 * The data plane serves until the manager calls {@link LocalCloud.shutdown} (after its controllers stopped):
 * listeners stop accepting, open connections get `drainTimeout` but never more than the manager's provider
 * shutdown bound, the inventory watch stops and queued Events are flushed.
 */
import {
  type CloudProvider,
  type ControllerClientBuilder,
  type InstancesV2,
  type LoadBalancer,
  registerCloudProvider,
} from '@ccm-kit/cloud-provider';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import { coreV1EventSink, EventBroadcaster, type EventRecorder } from '@ccm-kit/runtime/events';
import { CoreV1Api } from '@kubernetes/client-node';
import { coreV1ServiceStore, type ServiceStore } from './allocation-store.js';
import { type LocalConfig, parseConfig } from './config.js';
import { LocalInstances } from './instances.js';
import { InventoryWatcher } from './inventory-watcher.js';
import { LocalLoadBalancer } from './load-balancer.js';
import { type DataPlane, NoDataPlane, ProxyDataPlane, type ProxyDataPlaneOptions } from './proxy/data-plane.js';

/** The provider name, `--cloud-provider=local`. */
export const PROVIDER_NAME = 'local';
/** The client name (user agent suffix) and Event source component of the provider. */
export const CLIENT_NAME = 'local-cloud-provider';

/** Options of {@link LocalCloud}; tests inject the store, recorder or probe. */
export interface LocalCloudOptions {
  readonly config: LocalConfig;
  readonly inventory: InventoryWatcher;
  /** Service API access; default: created from the client builder in `initialize`. */
  readonly store?: ServiceStore;
  /** Event recorder; default: created in `initialize` (events before that are only logged). */
  readonly recorder?: EventRecorder;
  /** Health probe of the proxy (tests). */
  readonly probe?: ProxyDataPlaneOptions['probe'];
  readonly logger?: Logger;
}

export class LocalCloud implements CloudProvider {
  readonly config: LocalConfig;
  readonly inventory: InventoryWatcher;
  readonly dataPlane: DataPlane;
  readonly #instances: LocalInstances;
  readonly #loadBalancer: LocalLoadBalancer;
  readonly #logger: Logger;
  #store: ServiceStore | undefined;
  #recorder: EventRecorder | undefined;
  #broadcaster: EventBroadcaster | undefined;
  #closing: Promise<void> | undefined;
  /** Aborts when a caller's bound on the drain is reached: open connections are then cut. */
  readonly #cut = new AbortController();

  constructor(options: LocalCloudOptions) {
    this.config = options.config;
    this.inventory = options.inventory;
    this.#logger = options.logger ?? createLogger('local-cloud');
    this.#store = options.store;
    this.#recorder = options.recorder;
    this.#instances = new LocalInstances(() => this.inventory.current());
    const proxy =
      this.config.dataPlane === 'proxy'
        ? new ProxyDataPlane({
            drainMs: this.config.drainTimeoutMs,
            ...(options.probe ? { probe: options.probe } : {}),
          })
        : undefined;
    this.dataPlane = proxy ?? new NoDataPlane();
    this.#loadBalancer = new LocalLoadBalancer({
      config: this.config,
      dataPlane: this.dataPlane,
      machineAddresses: (node) => {
        try {
          return this.#instances.machineOf(node)?.addresses;
        } catch {
          return undefined; // a Node of another cloud: its own addresses
        }
      },
      ...(proxy ? { isRunning: (key: string) => proxy.get(key) !== undefined } : {}),
      store: this.#lateStore(),
      recorder: this.#lateRecorder(),
    });
  }

  /**
   * The factory: parses the cloud-config, reads the inventory and starts watching it.
   * @throws ConfigError listing every configuration problem; Error/InventoryError when the inventory cannot
   *   be read or is invalid.
   */
  static async create(configText: string | undefined): Promise<LocalCloud> {
    const config = parseConfig(configText);
    const inventory = await InventoryWatcher.open(config.inventory, {
      pollIntervalMs: config.inventoryPollIntervalMs,
    });
    inventory.start();
    return new LocalCloud({ config, inventory });
  }

  providerName(): string {
    return PROVIDER_NAME;
  }

  /** True when `clusterID` is set in the cloud-config. */
  hasClusterID(): boolean {
    return this.config.clusterID !== '';
  }

  instancesV2(): InstancesV2 {
    return this.#instances;
  }

  loadBalancer(): LoadBalancer {
    return this.#loadBalancer;
  }

  /** The load balancer with its allocation table (diagnostics and tests). */
  get localLoadBalancer(): LocalLoadBalancer {
    return this.#loadBalancer;
  }

  /**
   * Leader-only start: creates the Service client and the Event recorder (unless injected) and rebuilds the
   * allocation table. When `signal` aborts (stop, or lost leadership — fatal for the manager), the load
   * balancers keep serving until {@link shutdown}, so traffic flows while the controllers stop.
   */
  async initialize(clientBuilder: ControllerClientBuilder, signal: AbortSignal): Promise<void> {
    if (!this.#store || !this.#recorder) {
      const api = clientBuilder.client(CLIENT_NAME, CoreV1Api);
      this.#store ??= coreV1ServiceStore(api);
      if (!this.#recorder) {
        this.#broadcaster = new EventBroadcaster();
        this.#broadcaster.startRecordingToSink(coreV1EventSink(api));
        this.#recorder = this.#broadcaster.newRecorder(CLIENT_NAME);
      }
    }
    if (signal.aborted) return;
    this.#logger.info('Local cloud initialized', {
      clusterID: this.config.clusterID,
      dataPlane: this.config.dataPlane,
      pools: this.config.pools.map((p) => p.name).join(','),
      machines: this.inventory.current().machines.length,
    });
    // Warm the allocation table; a failure here is retried by the first load-balancer call.
    await this.#loadBalancer.ready(signal).catch((err) => this.#logger.error(err, 'Allocation table rebuild failed'));
  }

  /**
   * The manager's shutdown hook (`CloudProvider.shutdown`): {@link close}, with the manager's bound as
   * `signal`. Resolves when every listener and connection is closed.
   */
  shutdown(signal: AbortSignal): Promise<void> {
    return this.close(signal);
  }

  /**
   * Stops the listeners: they stop accepting at once, open TCP connections get `drainTimeout` to finish,
   * or until `signal` aborts (then they are cut), UDP flows end at once. Then stops the inventory watch and
   * the Event broadcaster. Idempotent: a later call's `signal` still bounds a drain in progress.
   */
  close(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) this.#cut.abort(signal.reason);
    else signal?.addEventListener('abort', () => this.#cut.abort(signal.reason), { once: true });
    this.#closing ??= (async () => {
      this.inventory.stop();
      await this.dataPlane.close(this.#cut.signal);
      await this.#broadcaster?.shutdown();
      this.#logger.info('Local cloud stopped');
    })();
    return this.#closing;
  }

  #lateStore(): ServiceStore {
    const need = (): ServiceStore => {
      if (!this.#store) throw new Error('local: the provider is not initialized yet (initialize() has not run)');
      return this.#store;
    };
    return {
      list: (signal) => need().list(signal),
      get: (namespace, name, signal) => need().get(namespace, name, signal),
      patchAnnotations: (service, annotations, signal) => need().patchAnnotations(service, annotations, signal),
    };
  }

  #lateRecorder(): EventRecorder {
    const log = (reason: string, message: string) =>
      this.#logger.warn('Event (recorder not started yet)', { reason, message });
    return {
      event: (object, type, reason, message) =>
        this.#recorder ? this.#recorder.event(object, type, reason, message) : log(reason, message),
      eventf: (object, type, reason, format, ...args) =>
        this.#recorder ? this.#recorder.eventf(object, type, reason, format, ...args) : log(reason, format),
      annotatedEventf: (object, annotations, type, reason, format, ...args) =>
        this.#recorder
          ? this.#recorder.annotatedEventf(object, annotations, type, reason, format, ...args)
          : log(reason, format),
    };
  }
}

/** Registers the provider under the name `local` (use `--cloud-provider=local --cloud-config=<file>`). */
export function register(): void {
  registerCloudProvider(PROVIDER_NAME, (config) => LocalCloud.create(config));
}

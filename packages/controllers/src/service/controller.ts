/**
 * The service load-balancer controller: keeps one cloud load balancer per `LoadBalancer` Service, its hosts
 * following the Nodes, its ingress in the Service status, and a cleanup finalizer that holds the Service until the
 * load balancer is gone.
 *
 * Follows upstream `k8s.io/cloud-provider/controllers/service/controller.go` (upstream quirks 1-11, 37 in docs/upstream-quirks.md).
 * Beyond upstream (both off by default): `loadBalancerClass` serves that class instead of class-less Services, and
 * `nodeOwnership` leaves Nodes it rejects out of every host list and ignores their events. With a capability
 * declaration on the LoadBalancer facet (absent by default), each Service is checked against it before the ensure
 * path's first cloud call (docs/service-capabilities.md, docs/decisions/0205). With `loadBalancerGroup` on the facet
 * (absent by default), Services of one group are never synced or host-updated at the same time (docs/decisions/0207).
 */
import {
  addLBFinalizer,
  type CloudProvider,
  findError,
  hasLBFinalizer,
  ImplementedElsewhereError,
  type Informer,
  RetryError,
  type LoadBalancer,
  type LoadBalancerCapabilities,
  loadBalancerStatusEqual,
  patchService,
  removeLBFinalizer,
  type ServiceStatusApi,
  type ServiceStatusClient,
  validateLoadBalancerCapabilities,
} from '@ccm-kit/cloud-provider';
import { deepCopy, errorMessage } from '@ccm-kit/cloud-provider/internal';
import { createLogger, formatGoDuration, type Logger } from '@ccm-kit/runtime';
import { withCloudLane, type CloudLane } from '@ccm-kit/runtime/budget';
import { isNotFound, patchOptions } from '@ccm-kit/runtime/client';
import { type QueueWorker, runController } from '@ccm-kit/runtime/controller';
import { type EventRecorder } from '@ccm-kit/runtime/events';
import { metaNamespaceKey, splitMetaNamespaceKey } from '@ccm-kit/runtime/informers';
import { parallelizeUntil, Workqueue } from '@ccm-kit/runtime/workqueue';
import { discardResponse } from '@ccm-kit/runtime/internal';
import type { V1Condition, V1LoadBalancerStatus, V1Node, V1ObjectReference, V1Service } from '@kubernetes/client-node';
import type { CloudControllerConfig } from '../contract/controller-config.js';
import type { ControllerOptions } from '../contract/controller-options.js';
import { groupOfService, type LoadBalancerGroupGate, loadBalancerGroupGate } from '../shared/load-balancer-groups.js';
import { isNodeOwned, ownedNodeHandler } from '../shared/node-ownership.js';
import {
  checkServiceCapabilities,
  REASON_UNSUPPORTED_SERVICE_FIELD,
  unsupportedFieldsMessage,
} from './capability-check.js';
import {
  EVENT_DELETED_LOAD_BALANCER,
  EVENT_DELETING_LOAD_BALANCER,
  EVENT_ENSURED_LOAD_BALANCER,
  EVENT_ENSURING_LOAD_BALANCER,
  EVENT_UNAVAILABLE_LOAD_BALANCER,
  EVENT_UPDATED_LOAD_BALANCER,
  REASON_DELETE_LOAD_BALANCER_FAILED,
  REASON_SYNC_LOAD_BALANCER_FAILED,
  REASON_UPDATE_LOAD_BALANCER_FAILED,
} from './events.js';
import { errorText } from './error-text.js';
import { GroupedServiceQueue } from './group-queue.js';
import { hostUpdateBatches } from './host-update-groups.js';
import { DEFAULT_HOST_UPDATE_WINDOW_MS, HostUpdateWindow } from './host-update-window.js';
import { type ServiceControllerMetrics, serviceControllerMetrics } from './metrics.js';
import { needsUpdateReason } from './needs-update.js';
import {
  filterWithPredicates,
  formatGoStringSlice,
  type HostNodeSet,
  hostNodeSet,
  loggableNodeNames,
  nodesSufficientlyEqual,
  shouldSyncUpdatedNode,
} from './host-predicates.js';
import { serviceQueueRateLimiter } from './queue-backoff.js';
import { ServiceCache } from './service-cache.js';
import { ServiceLanes } from './service-lanes.js';
import { isForeignLoadBalancer, leftByClassChange, needsCleanup, wantsLoadBalancer } from './service-ownership.js';
import {
  type LoadBalancerConditionState,
  REASON_INFRASTRUCTURE,
  REASON_PROVISIONING,
  REASON_SERVING,
  refusedReason,
  withLoadBalancerCondition,
} from './status-condition.js';
import type { KeyQueue } from './types.js';

/** The `name` label of `running_managed_controllers` for this controller (upstream's legacy short name). */
export const SERVICE_CONTROLLER_METRICS_NAME = 'service';
/** Upstream `serviceSyncPeriod`: resync period of the service informer handler, in ms. */
export const SERVICE_SYNC_PERIOD_MS = 30_000;
/**
 * The one key of the `node` queue. Upstream queues node names but ignores them (every node sync walks every
 * service), so ccm-kit queues a single key: a burst of node events coalesces into one pending sync
 * (docs/decisions/0200-service-node-queue-single-key.md).
 */
export const NODE_SYNC_KEY = 'node-sync';

/** What a sync did: upstream `loadBalancerOperation`. */
export type LoadBalancerOperation = 'delete' | 'ensure';

/**
 * The settings of {@link ServiceController}, named as the `CloudControllerConfig` fields they come from:
 * - `clusterName` (`--cluster-name`, required): passed to every LoadBalancer call;
 * - `concurrentServiceSyncs` (`--concurrent-service-syncs`, default 1; ≥ 0, 0 starts no service worker as
 *   upstream): the service workers, and the fan-out of each node sync;
 * - `loadBalancerClass` (beyond upstream): serve Services of this class instead of those without a class;
 * - `nodeOwnership` (beyond upstream): Nodes for which this returns false are never load-balancer hosts and their
 *   events are ignored;
 * - `hostUpdateWindowMs` (beyond upstream): Node changes within this many ms of the first are merged into one
 *   node sync (default {@link DEFAULT_HOST_UPDATE_WINDOW_MS}; 0 queues a sync at once for every change, as
 *   upstream; docs/decisions/0206-host-update-window.md);
 * - `serviceStatusConditions` (beyond upstream, default false): keep the condition `ccm-kit.io/LoadBalancerServing`
 *   on each Service (docs/decisions/0208-service-status-condition.md).
 */
export type ServiceControllerConfig = Pick<CloudControllerConfig, 'clusterName'> &
  Partial<
    Pick<
      CloudControllerConfig,
      | 'concurrentServiceSyncs'
      | 'loadBalancerClass'
      | 'nodeOwnership'
      | 'hostUpdateWindowMs'
      | 'serviceStatusConditions'
    >
  >;

/**
 * Construction options of {@link ServiceController}: the `service-controller` client (it sends the finalizer and
 * status strategic merge patches to `services/<name>/status`; client-node's `CoreV1Api` or the runtime's
 * `CoreV1Client`), the Service and Node informers (the Service lister is read on every sync), a provider with the
 * LoadBalancer facet, the recorder (source component `service-controller`), the logger (default
 * `createLogger('service-lb-controller')`) and {@link ServiceControllerConfig}; plus what tests replace.
 */
export interface ServiceControllerOptions extends ControllerOptions<
  ServiceStatusApi,
  ServiceControllerConfig,
  'services' | 'nodes'
> {
  /** Replaces the `service` queue (tests pass a recording queue); default: as upstream `New`. */
  readonly serviceQueue?: KeyQueue;
  /** Replaces the `node` queue (tests pass a recording queue); default: as upstream `New`. */
  readonly nodeQueue?: KeyQueue;
  /** Metrics (default: the process-wide service controller metrics). */
  readonly metrics?: ServiceControllerMetrics;
  /** Period of {@link ServiceController.resyncServices} in ms (default {@link SERVICE_SYNC_PERIOD_MS}). */
  readonly serviceResyncPeriodMs?: number;
}

/** The ObjectReference events about `svc` use (`apiVersion: v1`, `kind: Service`). */
export function serviceReference(svc: V1Service): V1ObjectReference {
  const ref: V1ObjectReference = {
    apiVersion: 'v1',
    kind: 'Service',
    namespace: svc.metadata?.namespace ?? '',
    name: svc.metadata?.name ?? '',
  };
  if (svc.metadata?.uid) ref.uid = svc.metadata.uid;
  if (svc.metadata?.resourceVersion) ref.resourceVersion = svc.metadata.resourceVersion;
  return ref;
}

/**
 * The service load-balancer controller (upstream `service.Controller`).
 *
 * Construct it, then call {@link ServiceController.run}. Informer handlers are registered by the constructor.
 * Methods other than `run` mirror upstream's internal functions and are public for tests.
 */
export class ServiceController {
  /** Last state processed per Service key (upstream `serviceCache`). */
  readonly cache = new ServiceCache();
  /**
   * The node set last sent to the cloud, per Service key; written before each cloud call (upstream quirk 4 in docs/upstream-quirks.md) and
   * dropped with the key's cache entry once no node sync runs (docs/decisions/0202). Services synced against the
   * same Node cache share one frozen array (`StableNodeSet`).
   */
  readonly lastSyncedNodes = new Map<string, readonly V1Node[]>();
  /** The `service` queue: `namespace/name` keys (per-key exponential backoff 5 s … 300 s). */
  readonly serviceQueue: KeyQueue;
  /** The `node` queue: the single key {@link NODE_SYNC_KEY} (per-key exponential backoff 5 s … 300 s). */
  readonly nodeQueue: KeyQueue;
  readonly #balancer: LoadBalancer;
  readonly #capabilities: LoadBalancerCapabilities | undefined;
  readonly #cloud: CloudProvider;
  /** Upstream `PatchService`'s client: the status subresource, the answer read but not parsed. */
  readonly #statusClient: ServiceStatusClient;
  readonly #services: Informer<V1Service>;
  readonly #nodes: Informer<V1Node>;
  readonly #clusterName: string;
  readonly #recorder: EventRecorder;
  readonly #log: Logger;
  readonly #lbClass: string | undefined;
  readonly #ownership: ((node: V1Node) => boolean) | undefined;
  /** Which Nodes are the load balancers' hosts. */
  readonly #hosts: HostNodeSet;
  readonly #metrics: ServiceControllerMetrics;
  readonly #removeHandlers: (() => void)[] = [];
  readonly #lanes = new ServiceLanes();
  readonly #servicesResyncMs: number;
  readonly #workers: number;
  /** Node syncs under way; while any runs, forgotten keys keep their last synced nodes (decision 0202). */
  #nodeSyncsRunning = 0;
  /** Merges Node changes into one node sync (decision 0206). */
  readonly #hostUpdates: HostUpdateWindow;
  /** With load-balancer groups: one holder per group, shared with the process' other load-balancer controllers. */
  readonly #groups: LoadBalancerGroupGate | undefined;
  /** What the service workers take keys from: {@link serviceQueue}, behind the group gate with groups (0207). */
  readonly #workerQueue: KeyQueue;
  readonly #groupedQueue: GroupedServiceQueue | undefined;
  /** `--service-status-conditions`: keep the load-balancer condition on each Service (decision 0208). */
  readonly #conditions: boolean;

  /**
   * Builds the controller and registers its informer handlers.
   * @throws Error `the cloud provider does not support external load balancers` when the LoadBalancer facet is
   *   unsupported (upstream `init`), or when `clusterName` is not a string.
   * @throws TypeError naming the member when the facet's `capabilities` declaration is malformed
   *   (`validateLoadBalancerCapabilities`).
   */
  constructor(opts: ServiceControllerOptions) {
    const { config } = opts;
    const balancer = opts.cloud.loadBalancer?.();
    if (balancer === undefined || balancer === null) {
      throw new Error('the cloud provider does not support external load balancers');
    }
    if (typeof config.clusterName !== 'string') {
      throw new TypeError(`clusterName must be a string, got ${typeof config.clusterName}`);
    }
    this.#balancer = balancer;
    this.#capabilities = balancer.capabilities;
    if (this.#capabilities !== undefined) {
      validateLoadBalancerCapabilities(this.#capabilities, opts.cloud.providerName());
    }
    this.#cloud = opts.cloud;
    const client = opts.client;
    // Upstream's callers of `PatchService` discard the Service it returns, so the answer is not parsed.
    this.#statusClient = {
      patchServiceStatus: (namespace, name, body) =>
        client.patchNamespacedServiceStatus({ namespace, name, body }, discardResponse(patchOptions('strategic'))),
    };
    this.#services = opts.informers.services();
    this.#nodes = opts.informers.nodes();
    this.#clusterName = config.clusterName;
    this.#workers = config.concurrentServiceSyncs ?? 1;
    this.#recorder = opts.recorder;
    this.serviceQueue =
      opts.serviceQueue ?? new Workqueue<string>({ name: 'service', rateLimiter: serviceQueueRateLimiter() });
    this.nodeQueue = opts.nodeQueue ?? new Workqueue<string>({ name: 'node', rateLimiter: serviceQueueRateLimiter() });
    this.#log = opts.logger ?? createLogger('service-lb-controller');
    this.#lbClass = config.loadBalancerClass;
    this.#ownership = config.nodeOwnership;
    this.#hosts = hostNodeSet(this.#ownership);
    this.#metrics = opts.metrics ?? serviceControllerMetrics();
    this.#servicesResyncMs = opts.serviceResyncPeriodMs ?? SERVICE_SYNC_PERIOD_MS;
    if (!(Number.isFinite(this.#servicesResyncMs) && this.#servicesResyncMs > 0)) {
      throw new RangeError(`serviceResyncPeriodMs must be a positive number of ms, got ${opts.serviceResyncPeriodMs}`);
    }
    this.#hostUpdates = new HostUpdateWindow(config.hostUpdateWindowMs ?? DEFAULT_HOST_UPDATE_WINDOW_MS, () =>
      this.nodeQueue.add(NODE_SYNC_KEY),
    );
    if (typeof balancer.loadBalancerGroup === 'function') {
      this.#groups = loadBalancerGroupGate(balancer);
      this.#groupedQueue = new GroupedServiceQueue(this.serviceQueue, this.#groups, (key) => this.#groupOfKey(key));
    }
    this.#workerQueue = this.#groupedQueue ?? this.serviceQueue;
    this.#conditions = config.serviceStatusConditions ?? false;
    this.#registerEventHandlers();
  }

  #registerEventHandlers(): void {
    this.#removeHandlers.push(
      this.#services.addEventHandler({
        onAdd: (svc) => {
          // Checking cleanup here remedies changes missed while the controller was down.
          if (wantsLoadBalancer(svc, this.#lbClass) || needsCleanup(svc, this.#lbClass)) {
            // Provisioned before (finalizer and ingress): seeing it again at start-up is a resync, not a user's wait.
            const provisioned = hasLBFinalizer(svc) && (svc.status?.loadBalancer?.ingress?.length ?? 0) > 0;
            this.#enqueueService(
              metaNamespaceKey(svc),
              provisioned && !needsCleanup(svc, this.#lbClass) ? 'periodic' : 'user',
            );
          }
        },
        onUpdate: (oldSvc, newSvc) => {
          const reason = needsUpdateReason(oldSvc, newSvc, this.#lbClass);
          if (reason !== undefined) {
            this.#log.v(2).info('Service needs a load balancer update', { service: metaNamespaceKey(newSvc), reason });
          }
          if (reason !== undefined || needsCleanup(newSvc, this.#lbClass))
            this.#enqueueService(metaNamespaceKey(newSvc), 'user');
        },
        // No delete handler: deletions are handled through the finalizer when the deletion timestamp appears.
      }),
    );
    const nodeHandler = ownedNodeHandler(
      { nodeOwnership: this.#ownership },
      {
        // The initial list is not waited for: its sync must run before any Service is cached (decision 0204).
        onAdd: (_node, initial) => (initial ? this.#hostUpdates.flush() : this.#hostUpdates.notify()),
        onUpdate: (oldNode, newNode) => {
          if (this.#ownershipChanged(oldNode, newNode) || shouldSyncUpdatedNode(oldNode, newNode)) {
            this.#hostUpdates.notify();
          }
        },
        onDelete: () => this.#hostUpdates.notify(),
      },
    );
    this.#removeHandlers.push(this.#nodes.addEventHandler(nodeHandler));
  }

  #ownershipChanged(oldNode: V1Node, newNode: V1Node): boolean {
    if (this.#ownership === undefined) return false;
    const cfg = { nodeOwnership: this.#ownership };
    return isNodeOwned(cfg, oldNode) !== isNodeOwned(cfg, newNode);
  }

  /**
   * Runs the controller until `signal` aborts ({@link runController}): waits for both caches, starts
   * `concurrentServiceSyncs` service workers and one node worker, re-delivers the Services every
   * `serviceResyncPeriodMs`, and resolves once they have all stopped (the queues are shut down on abort).
   * Rejects with a RangeError naming `--concurrent-service-syncs` when it is negative or not an integer
   * (`runController`'s worker-count check).
   */
  async run(signal: AbortSignal): Promise<void> {
    const workers = this.#workers;
    if (workers === 0) this.#log.warn('concurrent-service-syncs is 0: no service workers, node syncs update nothing');
    await runController(signal, {
      name: 'service-lb-controller',
      metricsName: SERVICE_CONTROLLER_METRICS_NAME,
      logger: this.#log,
      logLines: { starting: 'Starting service controller', shuttingDown: 'Shutting down service controller' },
      informers: [this.#services, this.#nodes],
      queues: [
        // One node worker, so that one node sync runs at a time. Started before the service workers: the
        // node sync queued by the initial Node adds takes its snapshot of the Service cache before any
        // Service is cached, so it updates no load balancer whose first ensure is still to come
        // (docs/decisions/0204).
        { ...this.nodeWorker(workers), workers: 1 },
        { ...this.serviceWorker(), workers, workersFlag: '--concurrent-service-syncs' },
      ],
      // Upstream's informer resync: first after one period, then every period.
      passes: [
        { run: () => this.resyncServices(), periodMs: this.#servicesResyncMs, sliding: false, delayFirst: true },
      ],
      removeHandlers: this.#removeHandlers,
      onStop: () => this.#hostUpdates.stop(),
    });
  }

  /**
   * The effect of upstream's 30 s resync of the service handler: every cached Service is re-delivered as an
   * update with itself, which enqueues exactly those that need cleanup (`needsUpdate(s, s)` is false).
   * {@link ServiceController.run} calls it every {@link SERVICE_SYNC_PERIOD_MS}.
   */
  resyncServices(): void {
    for (const svc of this.#services.lister.list()) {
      if (needsCleanup(svc, this.#lbClass)) this.#enqueueService(metaNamespaceKey(svc), 'periodic');
    }
  }

  /** Queues `key` for a sync whose cloud calls are charged to `lane` (the highest of its pending reasons). */
  #enqueueService(key: string, lane: CloudLane): void {
    this.#lanes.mark(key, lane);
    this.serviceQueue.add(key);
  }

  /** The group of the Service with this key (the lister's, else the cached state's), or `undefined`. */
  #groupOfKey(key: string): string | undefined {
    const svc = this.#services.lister.get(key) ?? this.cache.get(key)?.state;
    return svc === undefined ? undefined : groupOfService(this.#balancer, this.#clusterName, svc);
  }

  /**
   * A sync in the lane its key was queued for; a failed sync keeps that lane for the retry. A Service whose group
   * could not be read fails here, before any cloud call (Warning Event `SyncLoadBalancerFailed`).
   */
  #syncInLane(key: string, signal: AbortSignal): Promise<void> {
    const lane = this.#lanes.take(key);
    const groupErr = this.#groupedQueue?.takeGroupError(key);
    const sync = () => {
      if (groupErr === undefined) return this.syncService(key, signal);
      const svc = this.#services.lister.get(key);
      if (svc !== undefined) {
        this.#event(
          serviceReference(svc),
          'Warning',
          REASON_SYNC_LOAD_BALANCER_FAILED,
          `Error syncing load balancer: ${errorMessage(groupErr)}`,
        );
      }
      return Promise.reject(groupErr);
    };
    return withCloudLane(lane, sync).catch((err: unknown) => {
      this.#lanes.mark(key, lane);
      throw err;
    });
  }

  /**
   * The `service` queue's worker for the runtime loop (upstream `processNextServiceItem`): reconcile function
   * {@link ServiceController.syncService}; forget on success; on a `RetryError` anywhere in the cause chain,
   * requeue after its delay without touching the backoff; otherwise requeue rate-limited.
   */
  serviceWorker(): QueueWorker<string> {
    return {
      name: 'service',
      // With groups, a key whose group is busy waits outside the queue, without a failure (decision 0207).
      queue: this.#workerQueue,
      reconcile: (key, signal) => this.#syncInLane(key, signal),
      logger: this.#log,
      onError: ({ key, err, retryAfterMs }) => {
        if (retryAfterMs !== undefined) {
          this.#log.warn(
            `error processing service ${key} (retrying in ${formatGoDuration(retryAfterMs)}): ${errorMessage(err)}`,
          );
        } else {
          this.#log.error(err, `error processing service ${key} (retrying with exponential backoff)`);
        }
      },
    };
  }

  /**
   * The `node` queue's worker for the runtime loop (upstream `processNextNodeItem`): a node sync over `workers`
   * concurrent updates; the Services whose update failed are re-added to the `service` queue (plain add). A node
   * sync never fails its key: an unexpected error is logged and not requeued.
   */
  nodeWorker(workers: number): QueueWorker<string> {
    return {
      name: 'node',
      queue: this.nodeQueue,
      // Host updates after Node changes: the `hosts` lane, below a user's Services, above periodic passes.
      reconcile: (_key, signal) =>
        withCloudLane('hosts', async () => {
          try {
            for (const toRetry of await this.syncNodes(workers, signal)) this.#enqueueService(toRetry, 'hosts');
          } catch (err) {
            this.#log.error(err, 'node sync failed');
          }
        }),
      logger: this.#log,
    };
  }

  /**
   * Syncs the Service with this key: the deletion path when it is gone from the lister, else create-or-update on
   * a deep copy.
   * @throws Error `unexpected key format: "<key>"`, or whatever the sync throws.
   */
  async syncService(key: string, signal?: AbortSignal): Promise<void> {
    const start = performance.now();
    try {
      splitMetaNamespaceKey(key);
      const svc = this.#services.lister.get(key);
      if (svc === undefined) {
        await this.processServiceDeletion(key, signal);
        return;
      }
      await this.processServiceCreateOrUpdate(deepCopy(svc), key, signal);
    } finally {
      this.#log.v(4).info('Finished syncing service', { service: key, durationMs: performance.now() - start });
    }
  }

  /** The legacy deletion path for a Service gone from the lister: deletes its cached load balancer, if any. */
  async processServiceDeletion(key: string, signal?: AbortSignal): Promise<void> {
    const cached = this.cache.get(key);
    if (cached === undefined) return;
    this.#log.v(2).info('Service has been deleted. Attempting to cleanup load balancer resources', { service: key });
    if (cached.state !== undefined) await this.processLoadBalancerDelete(cached.state, signal);
    this.#forget(key);
  }

  /**
   * Deletes the load balancer of a Service that did not go through the finalizer. `ImplementedElsewhere` is an
   * error here, as upstream. Throws the provider's error unchanged.
   */
  async processLoadBalancerDelete(svc: V1Service, signal?: AbortSignal): Promise<void> {
    if (!wantsLoadBalancer(svc, this.#lbClass)) return;
    const ref = serviceReference(svc);
    this.#event(ref, 'Normal', EVENT_DELETING_LOAD_BALANCER.reason, EVENT_DELETING_LOAD_BALANCER.message);
    try {
      await this.#balancer.ensureLoadBalancerDeleted(this.#clusterName, svc, signal);
    } catch (err) {
      // Work cut off by the controller stopping is not a failure to report on the Service.
      if (!signal?.aborted)
        this.#event(
          ref,
          'Warning',
          REASON_DELETE_LOAD_BALANCER_FAILED,
          `Error deleting load balancer: ${errorText(err)}`,
        );
      throw err;
    }
    this.#event(ref, 'Normal', EVENT_DELETED_LOAD_BALANCER.reason, EVENT_DELETED_LOAD_BALANCER.message);
  }

  /**
   * Processes a Service present in the lister (`svc` is a private copy). A Service the capability check refuses
   * ends here, successfully (no requeue: its next change queues it again); its cache entry keeps the state last
   * ensured, so an existing load balancer keeps that configuration and its hosts still follow the Nodes.
   */
  async processServiceCreateOrUpdate(svc: V1Service, key: string, signal?: AbortSignal): Promise<void> {
    const cached = this.cache.getOrCreate(key);
    if (cached.state !== undefined && (cached.state.metadata?.uid ?? '') !== (svc.metadata?.uid ?? '')) {
      // Deleted and re-created quickly, without a finalizer: delete the old load balancer first.
      await this.processLoadBalancerDelete(cached.state, signal);
      cached.state = undefined;
    }
    const refusal = this.#refusedByCapabilities(svc, key);
    if (refusal !== undefined) {
      await this.#writeCondition(svc, refusal);
      if (cached.state === undefined) this.#forget(key);
      return;
    }
    cached.state = svc;
    let op: LoadBalancerOperation;
    try {
      op = await this.syncLoadBalancerIfNeeded(svc, key, signal);
    } catch (err) {
      // Work cut off by the controller stopping is not a failure to report on the Service.
      if (!signal?.aborted) {
        const message = `Error syncing load balancer: ${errorMessage(err)}`;
        this.#event(serviceReference(svc), 'Warning', REASON_SYNC_LOAD_BALANCER_FAILED, message);
        if (this.#onEnsurePath(svc)) {
          const reason = findError(err, RetryError) === undefined ? REASON_INFRASTRUCTURE : REASON_PROVISIONING;
          await this.#writeCondition(svc, { status: 'False', reason, message });
        }
      }
      throw err;
    }
    if (op === 'delete') this.#forget(key);
  }

  /** Whether `svc` is headed for the ensure path (it wants a load balancer of this controller's class). */
  #onEnsurePath(svc: V1Service): boolean {
    return (
      wantsLoadBalancer(svc, this.#lbClass) &&
      !needsCleanup(svc, this.#lbClass) &&
      !isForeignLoadBalancer(svc, this.#lbClass)
    );
  }

  /**
   * With `--service-status-conditions`, sets the load-balancer condition of `svc` to `state` (`undefined`: removes
   * it) in a status patch of its own, when it changes; used where no ingress is written (a refused or failed
   * sync). A failed write is logged, not thrown: the Event already tells, and the next sync writes it again.
   */
  async #writeCondition(svc: V1Service, state: LoadBalancerConditionState | undefined): Promise<void> {
    if (!this.#conditions) return;
    const conditions = withLoadBalancerCondition(svc, state, new Date());
    if (conditions === undefined) return;
    const updated = deepCopy(svc);
    updated.status = { ...updated.status, conditions };
    try {
      await patchService(this.#statusClient, svc, updated);
    } catch (err) {
      if (!isNotFound(err)) {
        this.#log.error(err, 'failed to write the load-balancer condition', { service: metaNamespaceKey(svc) });
      }
    }
  }

  /**
   * Checks a Service headed for the ensure path against the capability declaration: records one Warning Event
   * `UnsupportedServiceField` naming every unsupported field, and returns the condition a refused Service gets
   * (`False`, the field's `…NotSupported` reason, the Event's message) when one of them refuses it, else
   * `undefined` (docs/decisions/0205). Services on the delete path are never checked: a load balancer can always go.
   */
  #refusedByCapabilities(svc: V1Service, key: string): LoadBalancerConditionState | undefined {
    if (this.#capabilities === undefined) return undefined;
    if (!this.#onEnsurePath(svc)) return undefined;
    const unsupported = checkServiceCapabilities(svc, this.#capabilities);
    if (unsupported.length === 0) return undefined;
    const refused = unsupported.some((f) => f.refuse);
    const message = unsupportedFieldsMessage(this.#cloud.providerName(), unsupported);
    this.#log.warn(refused ? 'Refusing to ensure load balancer' : 'Service asks for unsupported fields', {
      service: key,
      fields: unsupported.map((f) => f.field).join(','),
    });
    this.#event(serviceReference(svc), 'Warning', REASON_UNSUPPORTED_SERVICE_FIELD, message);
    return refused ? { status: 'False', reason: refusedReason(unsupported), message } : undefined;
  }

  /**
   * Removes `key` from the cache, and its last synced node set unless a node sync is under way: that sync may
   * hold the key's old state and must compare with the set last sent, as upstream (which never drops it);
   * the set is then dropped when the last running node sync ends (docs/decisions/0202).
   */
  #forget(key: string): void {
    this.cache.delete(key);
    if (this.#nodeSyncsRunning === 0) this.lastSyncedNodes.delete(key);
  }

  /** Drops the last synced node sets of keys no longer in the cache (after the last running node sync). */
  #pruneLastSyncedNodes(): void {
    for (const key of [...this.lastSyncedNodes.keys()]) {
      if (this.cache.get(key) === undefined) this.lastSyncedNodes.delete(key);
    }
  }

  /**
   * Ensures or deletes the Service's load balancer and patches its status (upstream `syncLoadBalancerIfNeeded`):
   * the delete half for a Service that no longer wants one or needs cleanup, else the ensure half.
   * @returns the operation taken.
   * @throws Error with upstream's messages; on the ensure path the provider's error is the `cause`, so a
   *   `RetryError` is honoured; on the delete path it is not chained.
   */
  async syncLoadBalancerIfNeeded(svc: V1Service, key: string, signal?: AbortSignal): Promise<LoadBalancerOperation> {
    if (isForeignLoadBalancer(svc, this.#lbClass)) {
      // Beyond upstream (loadBalancerClass option): another implementation's Service; its finalizer may be
      // the same string, and removing it could leak that implementation's load balancer (decision 0203).
      this.#log.v(4).info('Service has a different loadBalancerClass, leaving it alone', { service: key });
      return 'delete';
    }
    const previousStatus = deepCopy(svc.status?.loadBalancer ?? {});
    const op: LoadBalancerOperation =
      !wantsLoadBalancer(svc, this.#lbClass) || needsCleanup(svc, this.#lbClass) ? 'delete' : 'ensure';
    const newStatus =
      op === 'delete'
        ? await this.#deleteLoadBalancer(svc, key, signal)
        : await this.#ensureLoadBalancer(svc, key, signal);
    if (newStatus === undefined) return op;
    try {
      await this.patchStatus(svc, previousStatus, newStatus, this.#conditionsAfter(svc, op));
    } catch (err) {
      // NotFound: the Service may vanish as soon as its finalizer is gone.
      // eslint-disable-next-line preserve-caught-error -- upstream wraps with %v: no RetryError is honoured here (upstream quirk 7 in docs/upstream-quirks.md)
      if (!isNotFound(err)) throw new Error(`failed to update load balancer status: ${errorText(err)}`);
    }
    return op;
  }

  /**
   * The delete half of {@link ServiceController.syncLoadBalancerIfNeeded}: deletes the load balancer if it exists,
   * then removes the finalizer.
   * @returns the status to write (empty), or `undefined` when the Service is left alone (no load balancer of ours
   *   for a Service of another class, decision 0051).
   */
  async #deleteLoadBalancer(
    svc: V1Service,
    key: string,
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus | undefined> {
    let exists: boolean;
    try {
      exists = (await this.#balancer.getLoadBalancer(this.#clusterName, svc, signal)) !== undefined;
    } catch (err) {
      // eslint-disable-next-line preserve-caught-error -- upstream wraps with %v: no RetryError is honoured here (upstream quirk 7 in docs/upstream-quirks.md)
      throw new Error(`failed to check if load balancer exists before cleanup: ${errorText(err)}`);
    }
    if (!exists && leftByClassChange(svc, this.#lbClass)) {
      // Beyond upstream (decision 0051): nothing of ours to delete, so the finalizer and the status may be
      // another implementation's (the same finalizer string); leave them.
      this.#log.v(4).info('No load balancer of ours for a Service of another class; leaving its finalizer', {
        service: key,
      });
      return undefined;
    }
    const ref = serviceReference(svc);
    if (exists) {
      this.#log.v(2).info('Deleting existing load balancer for service', { service: key });
      this.#event(ref, 'Normal', EVENT_DELETING_LOAD_BALANCER.reason, EVENT_DELETING_LOAD_BALANCER.message);
      try {
        await this.#balancer.ensureLoadBalancerDeleted(this.#clusterName, svc, signal);
      } catch (err) {
        if (!(err instanceof ImplementedElsewhereError)) {
          // eslint-disable-next-line preserve-caught-error -- upstream wraps with %v: no RetryError is honoured here (upstream quirk 7 in docs/upstream-quirks.md)
          throw new Error(`failed to delete load balancer: ${errorText(err)}`);
        }
        this.#log.v(4).info('LoadBalancer implemented by a different controller, ignoring error on deletion', {
          service: key,
          provider: this.#cloud.providerName(),
        });
      }
    }
    try {
      await this.removeFinalizer(svc);
    } catch (err) {
      // eslint-disable-next-line preserve-caught-error -- upstream wraps with %v: no RetryError is honoured here (upstream quirk 7 in docs/upstream-quirks.md)
      throw new Error(`failed to remove load balancer cleanup finalizer: ${errorText(err)}`);
    }
    this.#event(ref, 'Normal', EVENT_DELETED_LOAD_BALANCER.reason, EVENT_DELETED_LOAD_BALANCER.message);
    return {};
  }

  /**
   * The ensure half of {@link ServiceController.syncLoadBalancerIfNeeded}: adds the finalizer, then ensures the
   * load balancer.
   * @returns the status the provider answered, or `undefined` when another controller implements the load
   *   balancer (`ImplementedElsewhereError`: nothing to write).
   */
  async #ensureLoadBalancer(
    svc: V1Service,
    key: string,
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus | undefined> {
    this.#log.v(2).info('Ensuring load balancer for service', { service: key });
    const ref = serviceReference(svc);
    this.#event(ref, 'Normal', EVENT_ENSURING_LOAD_BALANCER.reason, EVENT_ENSURING_LOAD_BALANCER.message);
    try {
      // Awaited only when the finalizer is missing. With it present (every Service after a restart), caching
      // the Service and storing its node set in `ensureLoadBalancer` happen in one step, as upstream where
      // nothing between them waits: a node sync never finds the Service cached without its last synced nodes
      // (docs/decisions/0204).
      if (!hasLBFinalizer(svc)) await this.addFinalizer(svc);
    } catch (err) {
      // eslint-disable-next-line preserve-caught-error -- upstream wraps with %v: no RetryError is honoured here (upstream quirk 7 in docs/upstream-quirks.md)
      throw new Error(`failed to add load balancer cleanup finalizer: ${errorText(err)}`);
    }
    let status: V1LoadBalancerStatus | undefined | null;
    try {
      status = await this.ensureLoadBalancer(svc, signal);
    } catch (err) {
      if (!(err instanceof ImplementedElsewhereError)) {
        // Chained (Go's %w) so that the service worker honours a RetryError.
        throw new Error(`failed to ensure load balancer: ${errorText(err)}`, { cause: err });
      }
      this.#log.v(4).info('LoadBalancer implemented by a different controller, ignoring error', {
        service: key,
        provider: this.#cloud.providerName(),
      });
      return undefined;
    }
    if (status === undefined || status === null) {
      throw new Error('service status returned by EnsureLoadBalancer is nil');
    }
    this.#event(ref, 'Normal', EVENT_ENSURED_LOAD_BALANCER.reason, EVENT_ENSURED_LOAD_BALANCER.message);
    return status;
  }

  /**
   * Calls `ensureLoadBalancer` with the stable node set, storing that set as the Service's last synced nodes
   * before the call. Warns `UnAvailableLoadBalancer` (and still calls) when the set is empty.
   */
  async ensureLoadBalancer(svc: V1Service, signal?: AbortSignal): Promise<V1LoadBalancerStatus | undefined | null> {
    const nodes = this.#hosts.filter(this.#nodes.lister.list());
    if (nodes.length === 0) {
      this.#event(
        serviceReference(svc),
        'Warning',
        EVENT_UNAVAILABLE_LOAD_BALANCER.reason,
        EVENT_UNAVAILABLE_LOAD_BALANCER.message,
      );
    }
    this.lastSyncedNodes.set(metaNamespaceKey(svc), nodes);
    return this.#balancer.ensureLoadBalancer(this.#clusterName, svc, [...nodes], signal);
  }

  /** Adds the cleanup finalizer with a status-subresource SMP, unless already present. */
  async addFinalizer(svc: V1Service): Promise<void> {
    const updated = addLBFinalizer(svc);
    if (updated === undefined) return;
    this.#log.v(2).info('Adding finalizer to service', { service: metaNamespaceKey(svc) });
    await patchService(this.#statusClient, svc, updated);
  }

  /** Removes every occurrence of the cleanup finalizer with a status-subresource SMP, when present. */
  async removeFinalizer(svc: V1Service): Promise<void> {
    const updated = removeLBFinalizer(svc);
    if (updated === undefined) return;
    this.#log.v(2).info('Removing finalizer from service', { service: metaNamespaceKey(svc) });
    await patchService(this.#statusClient, svc, updated);
  }

  /**
   * With `--service-status-conditions`, the Service's conditions after a successful sync: the load-balancer
   * condition `True` (`Serving`) after an ensure, removed after a delete; `undefined` when nothing changes.
   */
  #conditionsAfter(svc: V1Service, op: LoadBalancerOperation): V1Condition[] | undefined {
    if (!this.#conditions) return undefined;
    const state: LoadBalancerConditionState | undefined =
      op === 'ensure'
        ? { status: 'True', reason: REASON_SERVING, message: EVENT_ENSURED_LOAD_BALANCER.message }
        : undefined;
    return withLoadBalancerCondition(svc, state, new Date());
  }

  /**
   * Replaces `status.loadBalancer` with `newStatus` unless it is semantically equal to `previousStatus`, and
   * `status.conditions` with `conditions` when given, in one status patch (sent when either changed).
   */
  async patchStatus(
    svc: V1Service,
    previousStatus: V1LoadBalancerStatus,
    newStatus: V1LoadBalancerStatus,
    conditions?: V1Condition[],
  ): Promise<void> {
    if (loadBalancerStatusEqual(previousStatus, newStatus) && conditions === undefined) return;
    const updated = deepCopy(svc);
    updated.status = {
      ...updated.status,
      loadBalancer: newStatus,
      ...(conditions === undefined ? {} : { conditions }),
    };
    this.#log.v(2).info('Patching status for service', { service: metaNamespaceKey(svc) });
    await patchService(this.#statusClient, svc, updated);
  }

  /**
   * Updates the hosts of every cached load-balancer Service whose stable node set changed, over `workers`
   * concurrent updates, and observes `service_controller_nodesync_latency_seconds`.
   * @returns the keys of the Services whose update failed (to be re-ensured through the service queue).
   */
  async syncNodes(workers: number, signal?: AbortSignal): Promise<Set<string>> {
    const start = performance.now();
    this.#nodeSyncsRunning++;
    try {
      this.#log.v(2).info('Syncing backends for all LB services.');
      const services = this.cache.allServices();
      const toRetry = await this.updateLoadBalancerHosts(services, workers, signal);
      this.#log
        .v(2)
        .info(
          `Successfully updated ${services.length - toRetry.size} out of ${services.length} load balancers to direct traffic to the updated set of nodes`,
        );
      return toRetry;
    } finally {
      this.#nodeSyncsRunning--;
      if (this.#nodeSyncsRunning === 0) this.#pruneLastSyncedNodes();
      this.#metrics.nodeSyncLatency.observe((performance.now() - start) / 1000);
    }
  }

  /**
   * Runs {@link ServiceController.nodeSyncService} for each service with at most `workers` at once; stops
   * handing out services once `signal` aborts (upstream `ParallelizeUntil`). With load-balancer groups, the
   * Services of one group are updated one after another, each holding its group (decision 0207).
   * @returns the `namespace/name` keys that need a retry.
   */
  async updateLoadBalancerHosts(
    services: readonly (V1Service | undefined)[],
    workers: number,
    signal?: AbortSignal,
  ): Promise<Set<string>> {
    const toRetry = new Set<string>();
    const syncOne = async (svc: V1Service | undefined) => {
      let retry: boolean;
      try {
        retry = await this.nodeSyncService(svc);
      } catch (err) {
        this.#log.error(err, 'node sync of a service failed unexpectedly');
        retry = true;
      }
      if (retry && svc !== undefined) toRetry.add(metaNamespaceKey(svc));
    };
    const groups = this.#groups;
    if (groups === undefined) {
      await parallelizeUntil(signal, workers, services.length, (i) => syncOne(services[i]));
      return toRetry;
    }
    const { batches, failed } = hostUpdateBatches(services, (svc) =>
      groupOfService(this.#balancer, this.#clusterName, svc),
    );
    for (const { service, err } of failed) {
      this.#log.error(err, 'failed to read the load-balancer group', { service: metaNamespaceKey(service) });
      toRetry.add(metaNamespaceKey(service));
    }
    await parallelizeUntil(signal, workers, batches.length, async (i) => {
      const { group, services: batch } = batches[i]!;
      for (const svc of batch) {
        if (signal?.aborted) return;
        if (group === undefined) await syncOne(svc);
        else await groups.run(group, () => syncOne(svc), signal).catch(() => toRetry.add(metaNamespaceKey(svc)));
      }
    });
    return toRetry;
  }

  /**
   * Node sync of one Service (upstream `nodeSyncService`): compares the current stable node set with the one
   * last sent, stores the current one at once, and calls `updateLoadBalancer` when they differ.
   * @returns true when the Service should be retried.
   */
  async nodeSyncService(svc: V1Service | undefined): Promise<boolean> {
    if (svc === undefined || !wantsLoadBalancer(svc, this.#lbClass)) return false;
    let all: V1Node[];
    try {
      all = this.#nodes.lister.list();
    } catch (err) {
      this.#log.error(err, 'failed to retrieve node list');
      this.#metrics.nodeSyncErrorCount.inc();
      return true;
    }
    const key = metaNamespaceKey(svc);
    const newNodes = this.#hosts.filter(all);
    const lastSynced = this.lastSyncedNodes.get(key) ?? [];
    // Stored before the outcome is known: a failed update is retried through the service queue (full ensure).
    this.lastSyncedNodes.set(key, newNodes);
    // The stable set is one array while the Node cache is unchanged: the same array needs no comparison.
    if (lastSynced === newNodes) return false;
    const oldNodes = filterWithPredicates(lastSynced, this.#hosts.predicates);
    if (nodesSufficientlyEqual(oldNodes, newNodes)) return false;
    this.#log.v(4).info('nodeSyncService started', { service: key });
    try {
      await this.lockedUpdateLoadBalancerHosts(svc, newNodes);
    } catch (err) {
      this.#log.error(err, 'failed to update load balancer hosts', { service: key });
      this.#metrics.nodeSyncErrorCount.inc();
      return true;
    }
    this.#log.v(4).info('nodeSyncService finished successfully', { service: key });
    return false;
  }

  /**
   * Calls `updateLoadBalancer` (without the controller's signal, as upstream's `context.TODO()`), records the
   * outcome event, and throws the provider's error when the load balancer still exists.
   */
  async lockedUpdateLoadBalancerHosts(svc: V1Service, hosts: readonly V1Node[]): Promise<void> {
    const start = performance.now();
    this.#metrics.loadBalancerSyncCount.inc();
    const ref = serviceReference(svc);
    try {
      this.#log
        .v(2)
        .info(
          `Updating backends for load balancer ${metaNamespaceKey(svc)} with ${hosts.length} nodes: ${formatGoStringSlice(loggableNodeNames(hosts))}`,
        );
      let updateErr: unknown;
      try {
        await this.#balancer.updateLoadBalancer(this.#clusterName, svc, [...hosts]);
        if (hosts.length === 0) {
          this.#event(ref, 'Warning', EVENT_UNAVAILABLE_LOAD_BALANCER.reason, EVENT_UNAVAILABLE_LOAD_BALANCER.message);
        } else {
          this.#event(ref, 'Normal', EVENT_UPDATED_LOAD_BALANCER.reason, EVENT_UPDATED_LOAD_BALANCER.message);
        }
        return;
      } catch (err) {
        updateErr = err;
      }
      if (updateErr instanceof ImplementedElsewhereError) return;
      // It is only an error if the load balancer still exists.
      try {
        const status = await this.#balancer.getLoadBalancer(this.#clusterName, svc);
        if (status === undefined) return;
      } catch (err) {
        this.#log.error(err, 'failed to check if load balancer exists for service', {
          service: metaNamespaceKey(svc),
        });
      }
      this.#event(
        ref,
        'Warning',
        REASON_UPDATE_LOAD_BALANCER_FAILED,
        `Error updating load balancer with new hosts ${formatGoStringSlice(loggableNodeNames(hosts))} [node names limited, total number of nodes: ${hosts.length}], error: ${errorText(updateErr)}`,
      );
      throw updateErr;
    } finally {
      this.#metrics.updateLoadBalancerHostLatency.observe((performance.now() - start) / 1000);
    }
  }

  #event(ref: V1ObjectReference, type: 'Normal' | 'Warning', reason: string, message: string): void {
    try {
      this.#recorder.event(ref, type, reason, message);
    } catch (err) {
      this.#log.error(err, 'failed to record event', { reason });
    }
  }
}

/**
 * The cloud-node controller: initializes Nodes registered with the uninitialized taint from the cloud's
 * instance metadata, keeps the GA topology labels in step with the beta ones, and refreshes every
 * initialized Node's addresses periodically.
 *
 * Follows upstream `controllers/node/node_controller.go` (`CloudNodeController`). Reference:
 * Upstream `client-go util/retry`; upstream `k8s.io/cloud-provider controllers/node/node_controller.go`; upstream quirks 12–20 in docs/upstream-quirks.md.
 */
import {
  addOrUpdateLabelsOnNode,
  type CloudProvider,
  type Informer,
  type InstanceMetadata,
  type InstanceState,
  type NodeApi,
  type NodeClient,
  nodeClientFromCoreV1Api,
  retryOnConflict,
} from '@ccm-kit/cloud-provider';
import { deepCopy, errorMessage, UPDATE_NODE_SPEC_BACKOFF } from '@ccm-kit/cloud-provider/internal';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import { withCloudLane } from '@ccm-kit/runtime/budget';
import { callOptions, patchOptions } from '@ccm-kit/runtime/client';
import { type QueueWorker, runController } from '@ccm-kit/runtime/controller';
import { type EventRecorder } from '@ccm-kit/runtime/events';
import { splitMetaNamespaceKey } from '@ccm-kit/runtime/informers';
import { defaultControllerRateLimiter, parallelizeUntil, Workqueue } from '@ccm-kit/runtime/workqueue';
import { discardResponse, parseTime } from '@ccm-kit/runtime/internal';
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import type { CloudControllerConfig } from '../contract/controller-config.js';
import type { ControllerOptions } from '../contract/controller-options.js';
import { isNodeOwned, nodeReference, ownedNodeHandler, PassInstanceListing } from '../shared/index.js';
import { desiredNodeAddresses, nodeAddressesStatusPatch } from './addresses.js';
import { isUninitialized } from './cloud-taint.js';
import { getInstanceMetadata, getInstanceNodeAddresses } from './instance-metadata.js';
import { labelsToReconcile } from './labels.js';
import { initialNodeSyncDelay, removeCloudProviderTaintDelay } from './metrics.js';
import { applyModifiers, nodeModifiersFromMetadata, removeCloudTaint } from './modifiers.js';

/** The queue name (labels the `workqueue_*` metrics). */
export const CLOUD_NODE_QUEUE_NAME = 'Nodes';
/** The legacy short name used for `running_managed_controllers{name}`. */
export const CLOUD_NODE_METRICS_NAME = 'cloud-node';
/** Default `--node-status-update-frequency`, in ms (5 minutes). */
export const DEFAULT_NODE_STATUS_UPDATE_FREQUENCY_MS = 5 * 60_000;

/** The Node calls of the controller. */
export type CloudNodeApi = NodeApi & Pick<CoreV1Api, 'replaceNode' | 'patchNodeStatus'>;

/**
 * The settings of {@link CloudNodeController} (durations in ms; unset: the default noted):
 * - `nodeStatusUpdateFrequencyMs` (`--node-status-update-frequency`): status-loop period, default 300 000 ms;
 *   sliding, as upstream;
 * - `concurrentNodeSyncs` (`--concurrent-node-syncs`): initialization workers, default 1; 0 starts none (accepted
 *   upstream);
 * - `concurrentNodeStatusUpdates` (`--concurrent-node-status-updates`): status-loop parallelism; 0 or unset falls
 *   back to `concurrentNodeSyncs`. When that is 0 too, the status loop refreshes no Node, as upstream
 *   (`ParallelizeUntil` with 0 workers);
 * - `nodeOwnership` (beyond upstream): Nodes for which this returns false are ignored (never queued, never refreshed).
 */
export type CloudNodeConfig = Partial<
  Pick<
    CloudControllerConfig,
    'nodeStatusUpdateFrequencyMs' | 'concurrentNodeSyncs' | 'concurrentNodeStatusUpdates' | 'nodeOwnership'
  >
>;

/**
 * Construction options of {@link CloudNodeController}: the `node-controller` client (client-node's `CoreV1Api`
 * or the runtime's `CoreV1Client`), the Node informer (lister + add/update handlers), a provider supporting
 * InstancesV2 or Instances, the recorder of the `Synced` event (component `cloud-node-controller`), the logger
 * (default `createLogger('cloud-node-controller')`) and {@link CloudNodeConfig}.
 */
export type CloudNodeControllerOptions = ControllerOptions<CloudNodeApi, CloudNodeConfig, 'nodes'>;

function nonNegativeInt(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`CloudNodeController: ${field} must be an integer ≥ 0, got ${value}`);
  }
  return value;
}

function secondsSince(timestamp: unknown): number | undefined {
  try {
    const t = parseTime(timestamp as string | Date | undefined);
    return t === undefined ? undefined : (Date.now() - t.getTime()) / 1000;
  } catch {
    return undefined;
  }
}

/**
 * The cloud-node controller (upstream `CloudNodeController`). Build it, then call {@link CloudNodeController.run}.
 *
 * - Add and Update events of Nodes (every update, resyncs included) enqueue the Node name on the `Nodes` queue
 *   (client-go default controller rate limiter); there is no Delete handler.
 * - {@link CloudNodeController.syncNode} initializes a tainted Node, or reconciles the labels of an initialized one.
 * - {@link CloudNodeController.updateNodeStatus} refreshes addresses of initialized Nodes every period.
 */
export class CloudNodeController {
  readonly #informer: Informer<V1Node>;
  readonly #client: CloudNodeApi;
  readonly #nodeClient: NodeClient;
  readonly #cloud: CloudProvider;
  readonly #recorder: EventRecorder;
  readonly #periodMs: number;
  readonly #workers: number;
  readonly #statusWorkers: number;
  readonly #ownership: Pick<CloudNodeConfig, 'nodeOwnership'>;
  readonly #log: Logger;
  readonly #listing: PassInstanceListing;
  /** The `Nodes` queue: names of Nodes to sync (client-go default controller rate limiter). */
  readonly queue: Workqueue<string>;
  readonly #removeHandlers: (() => void)[] = [];

  /**
   * Registers the Node event handlers; nothing else runs until {@link CloudNodeController.run}.
   * @throws Error `cloud provider does not support instances` when neither InstancesV2 nor Instances is
   *   supported (the app then skips the controller).
   * @throws RangeError naming the field for a bad period or worker count.
   */
  constructor(options: CloudNodeControllerOptions) {
    const { cloud, config } = options;
    if (!cloud.instances?.() && !cloud.instancesV2?.()) {
      throw new Error('cloud provider does not support instances');
    }
    const period = config.nodeStatusUpdateFrequencyMs ?? DEFAULT_NODE_STATUS_UPDATE_FREQUENCY_MS;
    if (!Number.isFinite(period) || period <= 0) {
      throw new RangeError(`CloudNodeController: nodeStatusUpdateFrequencyMs must be > 0, got ${period}`);
    }
    this.#workers = nonNegativeInt(config.concurrentNodeSyncs, 1, 'concurrentNodeSyncs');
    const statusWorkers = nonNegativeInt(config.concurrentNodeStatusUpdates, 0, 'concurrentNodeStatusUpdates');
    // Upstream hands `statusUpdateWorkerCount` (already defaulted to `--concurrent-node-syncs` by the options)
    // to ParallelizeUntil, which processes nothing with 0 workers; so does this.
    this.#statusWorkers = statusWorkers > 0 ? statusWorkers : this.#workers;
    this.#periodMs = period;
    this.#cloud = cloud;
    this.#client = options.client;
    this.#nodeClient = nodeClientFromCoreV1Api(options.client);
    this.#recorder = options.recorder;
    this.#ownership = { nodeOwnership: config.nodeOwnership };
    this.#log = options.logger ?? createLogger('cloud-node-controller');
    this.#listing = new PassInstanceListing(1, this.#log);
    this.#informer = options.informers.nodes();
    this.queue = new Workqueue<string>({
      name: CLOUD_NODE_QUEUE_NAME,
      rateLimiter: defaultControllerRateLimiter(),
    });
    this.#registerEventHandlers();
  }

  /** Add and Update of owned Nodes (every update, resyncs included) queue the Node name; no Delete handler. */
  #registerEventHandlers(): void {
    this.#removeHandlers.push(
      this.#informer.addEventHandler(
        ownedNodeHandler(this.#ownership, {
          onAdd: (node) => this.#enqueue(node),
          onUpdate: (_old, node) => this.#enqueue(node),
        }),
      ),
    );
  }

  #enqueue(node: V1Node): void {
    const name = node.metadata?.name;
    if (!name) {
      this.#log.error(new Error('node has no metadata.name'), 'Cannot enqueue node');
      return;
    }
    this.queue.add(name);
  }

  /**
   * Runs until `signal` aborts ({@link runController}): waits for the Node cache to sync, starts the status loop
   * (immediately, then every `nodeStatusUpdateFrequencyMs` after each pass ends) and the initialization workers.
   * Resolves once everything has stopped; the queue is shut down and the event handlers are removed on the way out.
   */
  run(signal: AbortSignal): Promise<void> {
    return runController(signal, {
      name: 'cloud-node-controller',
      metricsName: CLOUD_NODE_METRICS_NAME,
      logger: this.#log,
      logLines: {
        waitingForSync: 'Waiting for informer caches to sync',
        syncFailed: 'Cannot start cloud-node controller',
      },
      informers: [this.#informer],
      // Upstream starts `--concurrent-node-syncs` workers; 0 is accepted and starts none.
      queues: [{ ...this.worker(), workers: this.#workers }],
      // Sliding, as upstream's wait.UntilWithContext: the period starts after each pass ends.
      passes: [{ run: (loopSignal) => this.updateNodeStatus(loopSignal), periodMs: this.#periodMs }],
      removeHandlers: this.#removeHandlers,
    });
  }

  /**
   * The `Nodes` queue's worker for the runtime loop (upstream `processNextWorkItem`): reconcile function
   * `syncHandler`; every failure is requeued rate-limited (upstream gives a `RetryError` no special delay here).
   */
  worker(): QueueWorker<string> {
    return {
      name: CLOUD_NODE_QUEUE_NAME,
      queue: this.queue,
      // Initializing a new Node is work a user waits for.
      reconcile: (key, signal) => withCloudLane('user', () => this.#syncHandler(key, signal)),
      honorRetryError: false,
      logger: this.#log,
    };
  }

  async #syncHandler(key: string, signal: AbortSignal): Promise<void> {
    let name: string;
    try {
      ({ name } = splitMetaNamespaceKey(key));
    } catch {
      this.#log.error(new Error(`invalid resource key: ${key}`), 'Dropping key');
      return;
    }
    await this.syncNode(name, signal);
  }

  /**
   * Initializes the named Node when it still has the uninitialized taint (upstream `syncNode`), else reconciles
   * its labels ({@link CloudNodeController.reconcileNodeLabels}). A Node missing from the lister is ignored.
   *
   * Initialization: instance metadata (nil metadata: log and return, nothing written), node modifiers, then a
   * conflict-retried (20 × 50 ms) full **PUT** of the lister's copy with the modifiers and the taint removal
   * applied, followed by the status addresses patch (failures logged only), the `Synced` event and the metrics.
   * @throws Error `failed to get instance metadata for node <name>: <err>` /
   *   `failed to get node modifiers from cloud provider: <err>` / the update error; the worker requeues it.
   */
  async syncNode(name: string, signal?: AbortSignal): Promise<void> {
    const cached = this.#informer.lister.get(name);
    if (!cached || !isNodeOwned(this.#ownership, cached)) return;
    if (!isUninitialized(cached)) {
      await this.reconcileNodeLabels(name, signal);
      return;
    }
    this.#log.info('Initializing node with cloud provider', { node: name });
    const copy = deepCopy(cached);
    let metadata: InstanceMetadata | undefined;
    try {
      metadata = await getInstanceMetadata(this.#cloud, copy, this.#log, signal);
    } catch (err) {
      throw new Error(`failed to get instance metadata for node ${name}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    if (!metadata) {
      this.#log.info('Skip sync node because cloud provided nil metadata', { node: name });
      return;
    }
    let modifiers: ReturnType<typeof nodeModifiersFromMetadata>;
    try {
      modifiers = nodeModifiersFromMetadata(copy, metadata, (d) => {
        if (d.reason === 'kubernetes-namespace') {
          this.#log.warn('Discarding node label with kubernetes namespace', { node: name, label: d.key });
        } else if (d.conflicting) {
          this.#log.warn('Discarding node label that is already present', { node: name, label: d.key });
        }
      });
    } catch (err) {
      throw new Error(`failed to get node modifiers from cloud provider: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    modifiers.push(removeCloudTaint);

    let latest: V1Node = cached;
    await retryOnConflict(
      async () => {
        const current = this.#informer.lister.get(name);
        if (!current) throw new Error(`node "${name}" not found in the informer cache`);
        latest = current;
        const updated = applyModifiers(current, modifiers);
        updated.apiVersion = 'v1';
        updated.kind = 'Node';
        // The answer is not read (upstream: `_, err = ...Update(...)`); the informer brings the new Node.
        await this.#client.replaceNode({ name, body: updated }, discardResponse(callOptions({ signal })));
        const taintDelay = secondsSince(updated.metadata?.creationTimestamp);
        if (taintDelay !== undefined) removeCloudProviderTaintDelay.observe(taintDelay);
        await this.updateNodeAddress(updated, metadata, signal);
        this.#log.info('Successfully initialized node with cloud provider', { node: name });
      },
      // An abort ends the retries (the last conflict is thrown) instead of sleeping on after stop.
      { backoff: UPDATE_NODE_SPEC_BACKOFF, signal },
    );
    // Upstream records on the Node object itself, so GetReference also carries its resourceVersion (the
    // informer copy's, from before the update); the lifecycle controller's hand-built reference does not.
    const ref = nodeReference(copy);
    const resourceVersion = copy.metadata?.resourceVersion;
    if (resourceVersion) ref.resourceVersion = resourceVersion;
    this.#recorder.event(ref, 'Normal', 'Synced', 'Node synced successfully');
    const syncDelay = secondsSince(latest.metadata?.creationTimestamp);
    if (syncDelay !== undefined) initialNodeSyncDelay.observe(syncDelay);
  }

  /**
   * Copies each beta topology/instance-type label to its GA label when missing or different (upstream
   * `reconcileNodeLabels`), with a labels-only strategic merge patch and conflict retry (5 × 100 ms).
   * An abort of `signal` ends the conflict retries early.
   * @throws Error `failed update labels for node <name>` when the patch fails (the worker requeues).
   */
  async reconcileNodeLabels(name: string, signal?: AbortSignal): Promise<void> {
    const node = this.#informer.lister.get(name);
    if (!node?.metadata?.labels) return;
    const labels = labelsToReconcile(node.metadata.labels);
    if (Object.keys(labels).length === 0) return;
    let failure: Error | undefined;
    const ok = await addOrUpdateLabelsOnNode(this.#nodeClient, labels, node, {
      signal,
      onError: (err) => {
        failure = err;
      },
    });
    if (!ok) throw new Error(`failed update labels for node ${name}`, { cause: failure });
  }

  /**
   * Writes the addresses the cloud reports for an initialized Node (upstream `updateNodeAddress`): nothing for a
   * Node still tainted, for empty cloud addresses or for no change; else a strategic merge patch of
   * `status.addresses` on `nodes/<name>/status`. Never throws: failures are logged.
   */
  async updateNodeAddress(node: V1Node, metadata: InstanceMetadata, signal?: AbortSignal): Promise<void> {
    const name = node.metadata?.name ?? '';
    if (isUninitialized(node)) {
      this.#log.v(5).info('This node is still tainted. Will not process.', { node: name });
      return;
    }
    let addresses: ReturnType<typeof desiredNodeAddresses>;
    try {
      addresses = desiredNodeAddresses(node, metadata.nodeAddresses);
    } catch (err) {
      this.#log.error(err, 'Failed to update node addresses for node', { node: name });
      return;
    }
    if (!addresses) return;
    try {
      await this.#client.patchNodeStatus(
        { name, body: nodeAddressesStatusPatch(addresses, node.status?.addresses) },
        discardResponse(patchOptions('strategic', { signal })),
      );
    } catch (err) {
      this.#log.error(err, 'Error patching node with cloud ip addresses', { node: name });
    }
  }

  /**
   * One pass of the status loop (upstream `UpdateNodeStatus`): for every owned, initialized Node in the lister,
   * asks the cloud for its addresses (InstancesV2 metadata, or v1 addresses by providerID then name) and calls
   * {@link CloudNodeController.updateNodeAddress}, `concurrentNodeStatusUpdates` Nodes at a time. Cloud errors and
   * nil metadata skip the Node (decision 0100). Stops handing out Nodes when `signal` aborts.
   *
   * Beyond upstream: when the provider offers `InstancesV2.listInstanceStates`, the pass first reads that
   * listing (unless per-Node calls are expected to be cheaper) and takes each listed Node's metadata from it,
   * matched by `spec.providerID`; every Node not listed is asked per Node as above (decision 0103). The
   * writes are the same either way. Its cloud calls are charged to the `periodic` cloud lane.
   */
  updateNodeStatus(signal?: AbortSignal): Promise<void> {
    // Every cloud call of the pass is periodic work in the cloud budget (docs/cloud-call-guard.md).
    return withCloudLane('periodic', () => this.#updateNodeStatus(signal));
  }

  async #updateNodeStatus(signal?: AbortSignal): Promise<void> {
    const start = performance.now();
    const nodes = this.#informer.lister.list();
    const listed = await this.#listing.read(this.#cloud, this.#statusProviderIDs(nodes), signal);
    await parallelizeUntil(signal, this.#statusWorkers, nodes.length, (i) =>
      this.#refreshNode(nodes[i]!, listed, signal),
    );
    this.#log.v(2).info('Updated nodes status', {
      nodes: nodes.length,
      durationMs: Math.round(performance.now() - start),
    });
  }

  /** The providerIDs of the Nodes the status pass refreshes (owned, initialized, with a providerID). */
  #statusProviderIDs(nodes: readonly V1Node[]): Set<string> {
    const ids = new Set<string>();
    for (const node of nodes) {
      const id = node.spec?.providerID;
      try {
        if (id && !isUninitialized(node) && isNodeOwned(this.#ownership, node)) ids.add(id);
      } catch {
        // A throwing ownership predicate is logged by #refreshNode, which asks about the Node again.
      }
    }
    return ids;
  }

  async #refreshNode(
    cached: V1Node,
    listed: ReadonlyMap<string, InstanceState> | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const name = cached.metadata?.name ?? '';
    try {
      if (!isNodeOwned(this.#ownership, cached)) return;
      if (isUninitialized(cached)) {
        this.#log.v(5).info('This node is still tainted. Will not process.', { node: name });
        return;
      }
      const node = deepCopy(cached);
      let metadata: InstanceMetadata | undefined = listed?.get(node.spec?.providerID ?? '')?.metadata;
      if (!metadata) {
        try {
          metadata = await getInstanceNodeAddresses(this.#cloud, node, signal);
        } catch (err) {
          this.#log.error(err, 'Error getting instance metadata for node addresses', { node: name });
          return;
        }
      }
      if (!metadata) {
        this.#log.v(4).info('Skipping node address update: cloud provided nil metadata', { node: name });
        return;
      }
      await this.updateNodeAddress(node, metadata, signal);
    } catch (err) {
      this.#log.error(err, 'Unexpected error updating node status', { node: name });
    }
  }
}

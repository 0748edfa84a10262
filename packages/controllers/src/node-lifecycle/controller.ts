/**
 * The cloud-node-lifecycle controller: deletes Nodes whose instance is gone from the cloud and taints Nodes
 * whose instance is shut down.
 *
 * Follows upstream `controllers/nodelifecycle/node_lifecycle_controller.go` (`CloudNodeLifecycleController`).
 * Upstream `k8s.io/cloud-provider controllers/nodelifecycle/node_lifecycle_controller.go`; upstream quirks 21–23 in docs/upstream-quirks.md.
 */
import {
  addOrUpdateTaintOnNode,
  type CloudProvider,
  type InstanceState,
  type Lister,
  type NodeApi,
  type NodeClient,
  nodeClientFromCoreV1Api,
  removeTaintOffNode,
} from '@ccm-kit/cloud-provider';
import { errorMessage } from '@ccm-kit/cloud-provider/internal';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import { withCloudLane } from '@ccm-kit/runtime/budget';
import { callOptions, errorStatus } from '@ccm-kit/runtime/client';
import { runController } from '@ccm-kit/runtime/controller';
import { type EventRecorder } from '@ccm-kit/runtime/events';
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import type { CloudControllerConfig } from '../contract/controller-config.js';
import type { ControllerOptions } from '../contract/controller-options.js';
import { isNodeOwned, nodeReference, PassInstanceListing } from '../shared/index.js';
import { instanceExists, instanceShutdown } from './instance-state.js';
import { readyConditionStatus, SHUTDOWN_TAINT } from './node-state.js';
import { OutOfServiceTaints } from './out-of-service.js';

/** The legacy short name used for `running_managed_controllers{name}`. */
export const CLOUD_NODE_LIFECYCLE_METRICS_NAME = 'cloud-node-lifecycle';
/** Default `--node-monitor-period`, in ms. */
export const DEFAULT_NODE_MONITOR_PERIOD_MS = 5_000;
/** Event reason when a Node is deleted because its instance is gone. */
export const DELETE_NODE_EVENT = 'DeletingNode';
/** Event reason when that delete fails. */
export const DELETE_NODE_FAILED_EVENT = 'DeletingNodeFailed';

/** The Node calls of the controller. */
export type NodeLifecycleApi = NodeApi & Pick<CoreV1Api, 'deleteNode'>;

/**
 * The settings of {@link CloudNodeLifecycleController} (durations in ms): `nodeMonitorPeriodMs`
 * (`--node-monitor-period`, default 5000 ms); `nodeOwnership` (beyond upstream): Nodes for which this returns
 * false are never checked, tainted or deleted.
 */
export type CloudNodeLifecycleConfig = Partial<
  Pick<CloudControllerConfig, 'nodeMonitorPeriodMs' | 'nodeOwnership' | 'outOfServiceTaintAfterMs'>
>;

/**
 * Construction options of {@link CloudNodeLifecycleController}: the `node-controller` client (client-node's
 * `CoreV1Api` or the runtime's `CoreV1Client`), the Node informer (only its **lister** is used: no handlers, no
 * wait for sync, as upstream), a provider supporting InstancesV2 or Instances, the recorder of `DeletingNode` /
 * `DeletingNodeFailed` (component `cloud-node-lifecycle-controller`), the logger (default
 * `createLogger('cloud-node-lifecycle-controller')`) and {@link CloudNodeLifecycleConfig}.
 */
export type CloudNodeLifecycleControllerOptions = ControllerOptions<
  NodeLifecycleApi,
  CloudNodeLifecycleConfig,
  'nodes'
>;

/**
 * The cloud-node-lifecycle controller (upstream `CloudNodeLifecycleController`). Every period, one Node after
 * another from the lister:
 * - Ready=True: only the shutdown taint is removed (no cloud call).
 * - otherwise: an instance that does not exist (false, or `InstanceNotFoundError` from the providerID lookup)
 *   means the Node is **deleted** (event `DeletingNode`); any other cloud error skips the Node this pass — it is
 *   never deleted on an error; an existing, shut-down instance gets the `NoSchedule` shutdown taint.
 * - beyond upstream, with `outOfServiceTaintAfterMs` > 0 (off by default): a machine reported shut down on every
 *   pass for that long also gets the out-of-service taint, removed once it runs again ({@link OutOfServiceTaints}).
 *
 * As upstream it has no queue and no event handlers: a periodic pass over the lister (docs/concepts.md).
 */
export class CloudNodeLifecycleController {
  readonly #lister: Lister<V1Node>;
  readonly #client: NodeLifecycleApi;
  readonly #nodeClient: NodeClient;
  readonly #cloud: CloudProvider;
  readonly #recorder: EventRecorder;
  readonly #periodMs: number;
  readonly #ownership: Pick<CloudNodeLifecycleConfig, 'nodeOwnership'>;
  readonly #log: Logger;
  readonly #listing: PassInstanceListing;
  /** The opt-in out-of-service taint (`outOfServiceTaintAfterMs` > 0); undefined: upstream behaviour. */
  readonly #outOfService: OutOfServiceTaints | undefined;

  /**
   * @throws Error `kubernetes client is nil`, `no cloud provider provided`, or
   *   `cloud provider does not support instances` (in that order, as upstream; the app then skips it).
   * @throws RangeError when `nodeMonitorPeriodMs` is not a positive number.
   */
  constructor(options: CloudNodeLifecycleControllerOptions) {
    if (!options.client) throw new Error('kubernetes client is nil');
    if (!options.cloud) throw new Error('no cloud provider provided');
    if (!options.cloud.instances?.() && !options.cloud.instancesV2?.()) {
      throw new Error('cloud provider does not support instances');
    }
    const period = options.config.nodeMonitorPeriodMs ?? DEFAULT_NODE_MONITOR_PERIOD_MS;
    if (!Number.isFinite(period) || period <= 0) {
      throw new RangeError(`CloudNodeLifecycleController: nodeMonitorPeriodMs must be > 0, got ${period}`);
    }
    this.#periodMs = period;
    this.#client = options.client;
    this.#nodeClient = nodeClientFromCoreV1Api(options.client);
    this.#cloud = options.cloud;
    this.#recorder = options.recorder;
    this.#ownership = { nodeOwnership: options.config.nodeOwnership };
    this.#log = options.logger ?? createLogger('cloud-node-lifecycle-controller');
    this.#listing = new PassInstanceListing(2, this.#log);
    this.#lister = options.informers.nodes().lister;
    const after = options.config.outOfServiceTaintAfterMs ?? 0;
    if (!Number.isFinite(after) || after < 0) {
      throw new RangeError(`CloudNodeLifecycleController: outOfServiceTaintAfterMs must be ≥ 0, got ${after}`);
    }
    this.#outOfService =
      after > 0
        ? new OutOfServiceTaints({
            afterMs: after,
            client: this.#nodeClient,
            recorder: this.#recorder,
            logger: this.#log,
          })
        : undefined;
  }

  /**
   * Runs {@link CloudNodeLifecycleController.monitorNodes} now and then `nodeMonitorPeriodMs` after each pass
   * ends (upstream `wait.UntilWithContext`, sliding) until `signal` aborts; resolves once the last pass is done.
   */
  run(signal: AbortSignal): Promise<void> {
    return runController(signal, {
      name: 'cloud-node-lifecycle-controller',
      metricsName: CLOUD_NODE_LIFECYCLE_METRICS_NAME,
      logger: this.#log,
      // Sliding, as upstream's wait.UntilWithContext: the period starts after each pass ends.
      passes: [{ run: (loopSignal) => this.monitorNodes(loopSignal), periodMs: this.#periodMs }],
    });
  }

  /**
   * One pass over every owned Node of the lister (upstream `MonitorNodes`); never throws for a single Node.
   *
   * Beyond upstream: when the provider offers `InstancesV2.listInstanceStates`, the pass first reads that
   * listing for the Nodes that are not Ready (unless per-Node calls are expected to be cheaper): a listed Node
   * exists and is shut down as listed. A Node not listed, on a complete listing or a failed one, is asked per
   * Node as upstream, so only `instanceExists` can delete it (decision 0103). The writes are the same either way.
   * Its cloud calls are charged to the `periodic` cloud lane.
   */
  monitorNodes(signal?: AbortSignal): Promise<void> {
    // Every cloud call of the pass is periodic work in the cloud budget (docs/cloud-call-guard.md).
    return withCloudLane('periodic', () => this.#monitorNodes(signal));
  }

  async #monitorNodes(signal?: AbortSignal): Promise<void> {
    let nodes: V1Node[];
    try {
      nodes = this.#lister.list();
    } catch (err) {
      this.#log.error(err, 'error listing nodes from cache');
      return;
    }
    const listed = await this.#listing.read(this.#cloud, this.#notReadyProviderIDs(nodes), signal);
    for (const node of nodes) {
      if (signal?.aborted) return;
      try {
        // A throwing ownership predicate skips this Node only, not the rest of the pass.
        if (!isNodeOwned(this.#ownership, node)) continue;
        await this.#monitorNode(node, listed?.get(node.spec?.providerID ?? ''), signal);
      } catch (err) {
        this.#log.error(err, 'Unexpected error monitoring node', { node: node.metadata?.name });
      }
    }
    this.#outOfService?.forgetAllBut(new Set(nodes.map((n) => n.metadata?.name ?? '')));
  }

  /** Tells the out-of-service taint (when on) what the cloud said of the Node's machine; errors are logged. */
  async #outOfServiceSeen(node: V1Node, state: 'running' | 'shutDown', signal?: AbortSignal): Promise<void> {
    if (!this.#outOfService) return;
    try {
      await (state === 'running'
        ? this.#outOfService.running(node, signal)
        : this.#outOfService.shutDown(node, signal));
    } catch (err) {
      this.#log.error(err, 'error patching the out-of-service taint', { node: node.metadata?.name });
    }
  }

  /** The providerIDs of the owned Nodes the pass asks the cloud about (not Ready, with a providerID). */
  #notReadyProviderIDs(nodes: readonly V1Node[]): Set<string> {
    const ids = new Set<string>();
    for (const node of nodes) {
      const id = node.spec?.providerID;
      try {
        if (id && readyConditionStatus(node) !== 'True' && isNodeOwned(this.#ownership, node)) ids.add(id);
      } catch {
        // A throwing ownership predicate is logged by the pass, which skips the Node.
      }
    }
    return ids;
  }

  /** `listed`: the Node's instance from this pass's listing, when it was listed. */
  async #monitorNode(node: V1Node, listed: InstanceState | undefined, signal?: AbortSignal): Promise<void> {
    const name = node.metadata?.name ?? '';
    if (readyConditionStatus(node) === 'True') {
      try {
        await removeTaintOffNode(this.#nodeClient, name, node, [SHUTDOWN_TAINT], { signal });
      } catch (err) {
        this.#log.error(err, 'error patching node taints', { node: name });
      }
      await this.#outOfServiceSeen(node, 'running', signal);
      return;
    }

    // Listed means it exists; only the per-Node call can answer "gone".
    let exists = listed !== undefined;
    if (!exists) {
      try {
        exists = await instanceExists(this.#cloud, node, signal);
      } catch (err) {
        this.#log.error(err, 'error checking if node exists', { node: name });
        return;
      }
    }

    if (!exists) {
      this.#log.v(2).info('deleting node since it is no longer present in cloud provider', { node: name });
      const ref = nodeReference(node);
      this.#recorder.event(
        ref,
        'Normal',
        DELETE_NODE_EVENT,
        `Deleting node ${name} because it does not exist in the cloud provider`,
      );
      try {
        await this.#client.deleteNode({ name }, callOptions({ signal }));
      } catch (err) {
        this.#log.error(err, 'unable to delete node', { node: name });
        // The API's Status message (`nodes "x" not found`), as Go's error string; else the error's own.
        const message = errorStatus(err)?.message || errorMessage(err);
        this.#recorder.event(ref, 'Warning', DELETE_NODE_FAILED_EVENT, `Failed deleting node ${name}: ${message}`);
      }
      return;
    }

    let shutdown: boolean;
    if (listed) {
      shutdown = listed.shutdown;
    } else {
      try {
        shutdown = await instanceShutdown(this.#cloud, node, signal);
      } catch (err) {
        this.#log.error(err, 'error checking if node is shutdown', { node: name });
        return;
      }
    }
    if (!shutdown) {
      await this.#outOfServiceSeen(node, 'running', signal);
      return;
    }
    try {
      await addOrUpdateTaintOnNode(this.#nodeClient, name, [SHUTDOWN_TAINT], { signal });
    } catch (err) {
      this.#log.error(err, 'failed to apply shutdown taint to node, it may have been deleted.', {
        node: name,
      });
    }
    await this.#outOfServiceSeen(node, 'shutDown', signal);
  }
}

/**
 * node-ipam-controller: gives every Node without Pod CIDRs one block of each `--cluster-cidr` pool and returns
 * a deleted Node's blocks. Follows upstream `k8s.io/kubernetes pkg/controller/nodeipam/ipam/range_allocator.go`
 * (`rangeAllocator`: the `cidrallocator_node` queue, `syncNode`, `AllocateOrOccupyCIDR`, `updateCIDRsAllocation`,
 * the `CIDRNotAvailable` and `CIDRAssignmentFailed` Events). Differences, all toward "never two Nodes with one
 * CIDR": the pools are rebuilt from the synced Node cache before the first allocation (upstream lists Nodes
 * itself); a write that failed is re-read before its blocks are released; the write carries the Node's uid, so it
 * cannot land on a Node re-created under the same name; a Node waiting for a free block is retried as soon as
 * one is released (docs/decisions/0104-node-ipam-never-shares-a-cidr.md).
 */
import type { Informer } from '@ccm-kit/cloud-provider';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import { callOptions, isNotFound, patchOptions, statusCode } from '@ccm-kit/runtime/client';
import { type QueueWorker, runController } from '@ccm-kit/runtime/controller';
import type { EventRecorder } from '@ccm-kit/runtime/events';
import { defaultControllerRateLimiter, Workqueue } from '@ccm-kit/runtime/workqueue';
import { discardResponse } from '@ccm-kit/runtime/internal';
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import type { ControllerOptions } from '../contract/controller-options.js';
import { nodeReference } from '../shared/index.js';
import { NoCIDRsRemainingError } from './cidr-set.js';
import type { CidrSetMetrics } from './metrics.js';
import { type PodCIDRProblem, RangeAllocator, type Reservation } from './range-allocator.js';
import type { NodeIPAMParams } from './config.js';

/** The queue name (labels the `workqueue_*` metrics), upstream's. */
export const NODE_IPAM_QUEUE_NAME = 'cidrallocator_node';
/** Upstream's `cidrUpdateWorkers`: the queue's workers. */
export const CIDR_UPDATE_WORKERS = 30;
/** Upstream's `cidrUpdateRetries`: PATCH attempts per allocation. */
export const CIDR_UPDATE_RETRIES = 3;
/** Event reason: no free block (Warning), and a Node whose own podCIDRs cannot be tracked. */
export const CIDR_NOT_AVAILABLE = 'CIDRNotAvailable';
/** Event reason: the PATCH failed `CIDR_UPDATE_RETRIES` times (Warning). */
export const CIDR_ASSIGNMENT_FAILED = 'CIDRAssignmentFailed';

/** The Node calls of the controller. */
export type NodeIPAMApi = Pick<CoreV1Api, 'readNode' | 'patchNode'>;

/** The settings: the pools (from {@link nodeIPAMParams}), and where the `cidrset_*` series go. */
export type NodeIPAMControllerConfig = NodeIPAMParams & { metrics?: CidrSetMetrics; workers?: number };

/** Construction options: the `node-controller` client, the Node informer, recorder (component `cidrAllocator`). */
export type NodeIPAMControllerOptions = Omit<
  ControllerOptions<NodeIPAMApi, NodeIPAMControllerConfig, 'nodes'>,
  'cloud'
>;

function podCIDRsOf(node: V1Node): string[] {
  const list = node.spec?.podCIDRs ?? [];
  if (list.length > 0) return list;
  return node.spec?.podCIDR ? [node.spec.podCIDR] : [];
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A failed request whose effect is unknown (no answer, or a server timeout): its blocks stay reserved. */
function outcomeUnknown(err: unknown): boolean {
  const code = statusCode(err);
  return code === undefined || code === 504 || code === 408;
}

/**
 * The range allocator. Add and Update events queue the Node's name; a Delete returns the Node's blocks at once
 * and queues it too. {@link NodeIPAMController.syncNode} occupies the CIDRs a Node has or allocates and writes new
 * ones.
 */
export class NodeIPAMController {
  /** The pools; exposed for tests and metrics. */
  readonly allocator: RangeAllocator;
  /** The `cidrallocator_node` queue. */
  readonly queue: Workqueue<string>;
  readonly #informer: Informer<V1Node>;
  readonly #client: NodeIPAMApi;
  readonly #recorder: EventRecorder;
  readonly #log: Logger;
  readonly #workers: number;
  readonly #removeHandlers: (() => void)[] = [];
  /** Nodes that found a pool full; queued again when a block is released. */
  readonly #waiting = new Set<string>();
  /** `node\0message` of the podCIDR problems already reported, so each is one Event. */
  readonly #reported = new Set<string>();
  #rebuilt = false;

  /**
   * @throws RangeError from the pools for a mask size they cannot use (the descriptor checks the flags first).
   */
  constructor(options: NodeIPAMControllerOptions) {
    const { config } = options;
    this.allocator = new RangeAllocator({ ...config });
    this.#informer = options.informers.nodes();
    this.#client = options.client;
    this.#recorder = options.recorder;
    this.#log = options.logger ?? createLogger('node-ipam-controller');
    this.#workers = config.workers ?? CIDR_UPDATE_WORKERS;
    this.queue = new Workqueue<string>({ name: NODE_IPAM_QUEUE_NAME, rateLimiter: defaultControllerRateLimiter() });
    this.#removeHandlers.push(
      this.#informer.addEventHandler({
        onAdd: (node) => this.#enqueue(node),
        onUpdate: (_old, node) => this.#enqueue(node),
        onDelete: (obj) => {
          const node = 'deletedFinalStateUnknown' in obj ? obj.obj : obj;
          const name = node.metadata?.name;
          if (!name) return;
          this.#release(name);
          for (const key of this.#reported) if (key.startsWith(`${name}\0`)) this.#reported.delete(key);
          this.#waiting.delete(name);
          this.queue.add(name);
        },
      }),
    );
  }

  #enqueue(node: V1Node): void {
    const name = node.metadata?.name;
    if (name) this.queue.add(name);
  }

  /** Returns the Node's blocks and lets the Nodes waiting for one try again. */
  #release(name: string, reservation?: Reservation): void {
    if (reservation) this.allocator.releaseReservation(name, reservation);
    else this.allocator.releaseNode(name);
    for (const waiting of this.#waiting) this.queue.add(waiting);
  }

  /** Runs until `signal` aborts: waits for the Node cache, then the workers (upstream `Run`). */
  run(signal: AbortSignal): Promise<void> {
    return runController(signal, {
      name: 'node-ipam-controller',
      logger: this.#log,
      logLines: { starting: 'Starting range CIDR allocator', shuttingDown: 'Shutting down range CIDR allocator' },
      informers: [this.#informer],
      queues: [{ ...this.worker(), workers: this.#workers }],
      removeHandlers: this.#removeHandlers,
    });
  }

  /** The queue's worker: every failure is requeued rate-limited, as upstream. */
  worker(): QueueWorker<string> {
    return {
      name: NODE_IPAM_QUEUE_NAME,
      queue: this.queue,
      reconcile: (name, signal) => this.syncNode(name, signal),
      honorRetryError: false,
      logger: this.#log,
    };
  }

  /**
   * Marks the CIDRs of every Node in the cache as used, once, before the first allocation: the pools of a new
   * leader or a restarted manager are rebuilt from the Nodes, never from memory.
   */
  #rebuildOnce(): void {
    if (this.#rebuilt) return;
    this.#rebuilt = true;
    for (const node of this.#informer.lister.list()) {
      const name = node.metadata?.name;
      const cidrs = podCIDRsOf(node);
      if (name && cidrs.length > 0) this.#occupy(node, name, cidrs);
    }
  }

  #occupy(node: V1Node, name: string, cidrs: readonly string[]): void {
    const problems = this.allocator.occupyNode(name, cidrs);
    for (const problem of problems) this.#reportProblem(node, name, problem);
  }

  #reportProblem(node: V1Node, name: string, problem: PodCIDRProblem): void {
    const key = `${name}\0${problem.message}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.#log.error(new Error(problem.message), 'Node has a podCIDR the allocator cannot track; left as it is', {
      node: name,
    });
    this.#recorder.event(
      nodeReference(node),
      'Warning',
      CIDR_NOT_AVAILABLE,
      `Node ${name} status is now: ${CIDR_NOT_AVAILABLE}: ${problem.message}; the Node keeps it`,
    );
  }

  /**
   * Upstream `syncNode`: a Node gone from the cache is done (its Delete released its blocks); a Node being
   * deleted releases its blocks; a Node with CIDRs has them marked used; any other gets one block per pool,
   * written with one PATCH.
   * @throws Error when no block is free (`CIDRNotAvailable` Event) or the write failed; the worker requeues it.
   */
  async syncNode(name: string, signal?: AbortSignal): Promise<void> {
    this.#rebuildOnce();
    const node = this.#informer.lister.get(name);
    if (!node) return;
    if (node.metadata?.deletionTimestamp) {
      this.#release(name);
      return;
    }
    const cidrs = podCIDRsOf(node);
    if (cidrs.length > 0) {
      this.#waiting.delete(name);
      this.#occupy(node, name, cidrs);
      return;
    }
    let reservation: Reservation;
    try {
      reservation = this.allocator.allocate(name);
    } catch (err) {
      if (!(err instanceof NoCIDRsRemainingError)) throw err;
      this.#waiting.add(name);
      this.#recorder.event(
        nodeReference(node),
        'Warning',
        CIDR_NOT_AVAILABLE,
        `Node ${name} status is now: ${CIDR_NOT_AVAILABLE}`,
      );
      throw new Error(`failed to allocate cidr from cluster cidr ${err.clusterCIDR}: ${err.message}`, { cause: err });
    }
    this.#waiting.delete(name);
    await this.#write(node, reservation, signal);
  }

  /** Upstream `updateCIDRsAllocation`, with a re-read of the Node before a failed write's blocks are released. */
  async #write(node: V1Node, reservation: Reservation, signal?: AbortSignal): Promise<void> {
    const name = node.metadata!.name!;
    const current = this.#informer.lister.get(name) ?? node;
    if (this.#settled(current, name, reservation)) return;
    const cidrs = [...reservation.cidrs];
    const body = { metadata: { uid: current.metadata?.uid }, spec: { podCIDR: cidrs[0], podCIDRs: cidrs } };
    let lastErr: unknown;
    for (let i = 0; i < CIDR_UPDATE_RETRIES && !signal?.aborted; i++) {
      try {
        await this.#client.patchNode({ name, body }, discardResponse(patchOptions('strategic', { signal })));
        this.#log.info('Set node PodCIDR', { node: name, podCIDRs: cidrs });
        return;
      } catch (err) {
        lastErr = err;
        if (isNotFound(err)) {
          this.#release(name, reservation);
          return;
        }
        // 422: the Node got CIDRs (podCIDRs are set once) or was re-created; the re-read below tells.
        if (statusCode(err) === 422) break;
      }
    }
    let fresh: V1Node | undefined;
    try {
      fresh = await this.#client.readNode({ name }, callOptions({ signal }));
    } catch (err) {
      if (isNotFound(err)) {
        this.#release(name, reservation);
        return;
      }
    }
    if (fresh && fresh.metadata?.uid === current.metadata?.uid && this.#settled(fresh, name, reservation)) return;
    this.#log.error(lastErr, 'Failed to update node PodCIDR after multiple attempts', { node: name, podCIDRs: cidrs });
    this.#recorder.event(
      nodeReference(current),
      'Warning',
      CIDR_ASSIGNMENT_FAILED,
      `Node ${name} status is now: ${CIDR_ASSIGNMENT_FAILED}`,
    );
    // A write whose outcome is unknown may still land: its blocks stay reserved (upstream accepts the leak
    // until restart; here until the Node is deleted or the manager restarts).
    if (!outcomeUnknown(lastErr)) this.#release(name, reservation);
    throw lastErr instanceof Error ? lastErr : new Error(String(lastErr));
  }

  /**
   * True when `node` needs no write: it has the reserved CIDRs (an earlier write landed), or other CIDRs (the
   * reservation is released and theirs are marked used).
   */
  #settled(node: V1Node, name: string, reservation: Reservation): boolean {
    const has = podCIDRsOf(node);
    if (has.length === 0) return false;
    if (!sameList(has, reservation.cidrs)) {
      this.#release(name, reservation);
      this.#occupy(node, name, has);
    }
    return true;
  }
}

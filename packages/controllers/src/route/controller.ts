/**
 * The node-route controller: keeps the cloud's routes in line with the Nodes' Pod CIDRs inside the cluster
 * CIDR(s), and reports the outcome in each Node's `NetworkUnavailable` condition.
 * Follows upstream `controllers/route/route_controller.go` (`RouteController`: `New`, `Run`,
 * `reconcileNodeRoutes`, `reconcile`, `updateNetworkingCondition`, `handleNodeUpdate`, `processNextWorkItem`).
 */
import { type CIDR, type Informer, type Route, type Routes, retryOnConflict } from '@ccm-kit/cloud-provider';
import { errorMessage, UPDATE_NODE_BACKOFF } from '@ccm-kit/cloud-provider/internal';
import { createLogger, formatGoDuration, type Logger } from '@ccm-kit/runtime';
import { withCloudLane } from '@ccm-kit/runtime/budget';
import { patchOptions } from '@ccm-kit/runtime/client';
import { type QueueWorker, runController } from '@ccm-kit/runtime/controller';
import type { EventRecorder } from '@ccm-kit/runtime/events';
import { Workqueue } from '@ccm-kit/runtime/workqueue';
import { discardResponse, routeQueueRateLimiter } from '@ccm-kit/runtime/internal';
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import pLimit, { type LimitFunction } from 'p-limit';
import type { CloudControllerConfig } from '../contract/controller-config.js';
import type { ControllerOptions } from '../contract/controller-options.js';
import { isNodeOwned, ownedNodeHandler } from '../shared/node-ownership.js';
import { nodeReference } from '../shared/node-reference.js';
import { ConditionWrites } from './condition-writes.js';
import { routeSyncTotal } from './metrics.js';
import {
  NETWORK_UNAVAILABLE,
  networkConditionNeedsUpdate,
  networkConditionPatch,
  networkUnavailableCondition,
} from './network-condition.js';
import { nodeUpdateAffectsRoutes } from './node-update.js';
import { type PlannedCreate, RoutePlan } from './plan.js';
import { isResponsibleForRoute } from './responsibility.js';

/** At most this many cloud route operations (deletes and creates together) run at once. */
export const MAX_CONCURRENT_ROUTE_OPERATIONS = 200;

/** Upstream `updateNetworkConditionBackoff`: 5 steps of 100 ms, jitter 1.0, factor 0 (conflict retries). */
export const UPDATE_NETWORK_CONDITION_BACKOFF = UPDATE_NODE_BACKOFF;

/** The single key of the watch-based `Routes` queue: every event asks for one whole-cluster pass. */
export const ROUTES_QUEUE_KEY = 'routes';

/** Default `--route-reconciliation-period`, in ms. */
export const DEFAULT_ROUTE_RECONCILIATION_PERIOD_MS = 10_000;

/** The Node call of the controller: `PATCH nodes/<name>/status` (strategic merge) for `NetworkUnavailable`. */
export type NodeRouteApi = Pick<CoreV1Api, 'patchNodeStatus'>;

/**
 * The settings of {@link NodeRouteController} (durations in ms):
 * - `clusterName` (`--cluster-name`): passed to every Routes call;
 * - `clusterCIDRs`: the parsed `--cluster-cidr` (1 or 2 CIDRs, `parseClusterCIDRs`); routes outside them are
 *   never touched;
 * - `routeReconciliationPeriodMs` (`--route-reconciliation-period`, default 10 000 ms): the period of the
 *   non-sliding passes; unused in watch-based mode;
 * - `watchBased` (gate `CloudControllerManagerWatchBasedRoutesReconciliation`, default false): passes are driven
 *   by Node events through the `Routes` queue;
 * - `nodeOwnership` (beyond upstream): Nodes this rejects are ignored, and routes targeting them are left alone.
 */
export type NodeRouteConfig = Pick<CloudControllerConfig, 'clusterName'> &
  Partial<Pick<CloudControllerConfig, 'routeReconciliationPeriodMs' | 'nodeOwnership'>> & {
    readonly clusterCIDRs: readonly CIDR[];
    readonly watchBased?: boolean;
  };

/**
 * Construction options of {@link NodeRouteController}: the `route-controller` client, the Node informer (its
 * lister is read every pass), a provider with the Routes facet, the recorder of `FailedToCreateRoute` Warning
 * events on Nodes, the logger (default `node-route-controller`) and {@link NodeRouteConfig}; plus the clock.
 */
export interface NodeRouteControllerOptions extends ControllerOptions<NodeRouteApi, NodeRouteConfig, 'nodes'> {
  /** Wall clock for condition timestamps (default `new Date()`). */
  readonly now?: () => Date;
}

/** What the controller works with, resolved from its options. */
interface RouteParts extends Pick<NodeRouteConfig, 'clusterName' | 'clusterCIDRs' | 'nodeOwnership'> {
  readonly routes: Routes;
  readonly nodes: Informer<V1Node>;
  readonly client: NodeRouteApi;
  readonly recorder: EventRecorder;
}

/** One cloud-route reconciler per manager. */
export class NodeRouteController {
  /** The `Routes` queue; present only in watch-based mode. */
  readonly queue: Workqueue<string> | undefined;
  readonly #o: RouteParts;
  readonly #periodMs: number;
  readonly #log: Logger;
  readonly #now: () => Date;
  readonly #removeHandlers: (() => void)[] = [];
  /** Condition writes the Node cache does not show yet (decision 0304). */
  readonly #writes = new ConditionWrites();

  /**
   * Builds the controller and, in watch-based mode, creates the `Routes` queue (token bucket: one pass per
   * 10 s, burst 1, waits capped at 10 s) and registers the Node event handlers.
   * @throws Error when `clusterCIDRs` is empty (upstream exits the process here), or
   *   `cloud provider does not support routes` when the provider has no Routes facet.
   */
  constructor(opts: NodeRouteControllerOptions) {
    const { config } = opts;
    if (config.clusterCIDRs.length === 0) throw new Error('RouteController: Must specify clusterCIDR.');
    const routes = opts.cloud.routes?.();
    if (!routes) throw new Error('cloud provider does not support routes');
    this.#o = {
      routes,
      nodes: opts.informers.nodes(),
      client: opts.client,
      recorder: opts.recorder,
      clusterName: config.clusterName,
      clusterCIDRs: config.clusterCIDRs,
      nodeOwnership: config.nodeOwnership,
    };
    this.#periodMs = config.routeReconciliationPeriodMs ?? DEFAULT_ROUTE_RECONCILIATION_PERIOD_MS;
    this.#log = opts.logger ?? createLogger('node-route-controller');
    this.#now = opts.now ?? (() => new Date());
    if (config.watchBased) {
      this.queue = new Workqueue<string>({ name: 'Routes', rateLimiter: routeQueueRateLimiter<string>() });
    }
    this.#registerEventHandlers();
  }

  /** Watch-based mode only: Node add, delete and relevant updates queue a pass (the single key `routes`). */
  #registerEventHandlers(): void {
    const queue = this.queue;
    if (!queue) return;
    const enqueue = () => queue.addRateLimited(ROUTES_QUEUE_KEY);
    this.#removeHandlers.push(
      this.#o.nodes.addEventHandler(
        ownedNodeHandler(this.#o, {
          onAdd: enqueue,
          onUpdate: (oldNode, newNode) => this.handleNodeUpdate(oldNode, newNode),
          onDelete: enqueue,
        }),
      ),
    );
  }

  /**
   * Watch-based mode: enqueues a pass on a resync (equal resourceVersions) or when Pod CIDRs or addresses change.
   * No-op without the queue.
   */
  handleNodeUpdate(oldNode: V1Node, newNode: V1Node): void {
    if (this.queue && nodeUpdateAffectsRoutes(oldNode, newNode)) this.queue.addRateLimited(ROUTES_QUEUE_KEY);
  }

  /**
   * Runs until `signal` aborts ({@link runController}): waits for the Node cache, then reconciles every
   * `routeReconciliationPeriodMs` (non-sliding, first pass at once, in the `periodic` cloud lane), or in
   * watch-based mode one worker drains the `Routes` queue (the period unused). Resolves once stopped.
   * @throws RangeError when not watch-based and `routeReconciliationPeriodMs` is not a positive number.
   */
  async run(signal: AbortSignal): Promise<void> {
    const periodMs = this.#periodMs;
    if (!this.queue && !(Number.isFinite(periodMs) && periodMs > 0)) {
      throw new RangeError(`route reconciliation period must be a positive number of milliseconds, got ${periodMs}`);
    }
    await runController(signal, {
      name: 'node-route-controller',
      metricsName: 'route',
      logger: this.#log,
      logLines: { starting: 'Starting route controller', shuttingDown: 'Shutting down route controller' },
      informers: [this.#o.nodes],
      queues: this.queue ? [{ ...this.worker(), workers: 1 }] : [],
      passes: this.queue
        ? []
        : [
            {
              run: async () => {
                try {
                  await this.reconcileNodeRoutes(signal);
                } catch (err) {
                  this.#log.error(err, "Couldn't reconcile node routes");
                }
              },
              periodMs,
              sliding: false,
              lane: 'periodic',
            },
          ],
      removeHandlers: this.#removeHandlers,
    });
  }

  /**
   * Watch-based mode: the `Routes` queue's worker for the runtime loop (upstream `processNextWorkItem`):
   * reconcile function {@link NodeRouteController.reconcileNodeRoutes} (the key only asks for a pass). The key
   * is forgotten before the pass, so an event arriving mid-pass still causes another pass; a failed pass is
   * requeued rate-limited (no `RetryError` delay).
   * @throws Error when the controller is not watch-based (it has no queue then).
   */
  worker(): QueueWorker<string> {
    if (!this.queue) throw new Error('the route controller has a queue only in watch-based mode');
    return {
      name: 'Routes',
      queue: this.queue,
      reconcile: (_key, signal) => withCloudLane('periodic', () => this.reconcileNodeRoutes(signal)),
      forgetBeforeReconcile: true,
      honorRetryError: false,
      logger: this.#log,
      onError: ({ err }) => this.#log.info(`Couldn't reconcile node routes: ${errorMessage(err)}, requeuing`),
    };
  }

  /**
   * One pass: counts `route_controller_route_sync_total`, lists the cloud's routes and the cached Nodes,
   * then {@link reconcile}s them.
   * @throws Error `error listing routes: …` / `error listing nodes: …` (the cause attached).
   */
  async reconcileNodeRoutes(signal: AbortSignal): Promise<void> {
    routeSyncTotal.inc();
    let routes: Route[];
    try {
      routes = await this.#o.routes.listRoutes(this.#o.clusterName, signal);
    } catch (err) {
      throw new Error(`error listing routes: ${errorMessage(err)}`, { cause: err });
    }
    let nodes: V1Node[];
    try {
      nodes = this.#o.nodes.lister.list();
    } catch (err) {
      throw new Error(`error listing nodes: ${errorMessage(err)}`, { cause: err });
    }
    await this.reconcile(nodes, routes, signal);
  }

  /**
   * Deletes stale and blackhole routes inside the cluster CIDRs, creates missing ones (name hint: the Node UID),
   * then writes each concerned Node's `NetworkUnavailable` condition. Individual failures are logged (and
   * create failures raised as `FailedToCreateRoute` events); this never throws for them.
   */
  async reconcile(allNodes: readonly V1Node[], routes: readonly Route[], signal: AbortSignal): Promise<void> {
    const nodes: V1Node[] = [];
    const foreign = new Set<string>();
    for (const n of allNodes) {
      if (isNodeOwned(this.#o, n)) nodes.push(n);
      else foreign.add(n.metadata?.name ?? '');
    }
    this.#writes.retainOnly(new Set(allNodes.map((n) => n.metadata?.name ?? '')));
    const plan = new RoutePlan(nodes, routes);
    for (const d of plan.decisions) {
      this.#log.v(2).info('Route action', { node: d.node, cidr: d.podCIDR, action: d.action });
    }
    const limit = pLimit(MAX_CONCURRENT_ROUTE_OPERATIONS);
    const responsible = (r: Route) =>
      !foreign.has(r.targetNode) &&
      isResponsibleForRoute(this.#o.clusterCIDRs, r, (err) =>
        this.#log.error(err, `Ignoring route ${r.name ?? ''}, unparsable CIDR`),
      );
    const deletes = plan.routesToDelete(responsible).map((route) => this.#deleteRoute(route, limit, signal));
    if (plan.createsWaitForDeletes()) await Promise.all(deletes);
    const creates = plan.plannedCreates().map((c) => this.#createRoute(c, plan, limit, signal));
    await Promise.all([...deletes, ...creates]);
    if (signal.aborted) return;
    await Promise.all(
      nodes.map(async (node) => {
        const outcome = plan.conditionOutcome(node);
        if (outcome === 'skip') return;
        if (plan.byNode.get(node.metadata?.name ?? '')?.actions.size === 0) {
          this.#log.info('Node has no routes assigned to it; NodeNetworkUnavailable will be set to true', {
            node: node.metadata?.name,
          });
        }
        try {
          await this.updateNetworkingCondition(node, outcome === 'routes-created', signal);
        } catch {
          // logged by updateNetworkingCondition
        }
      }),
    );
  }

  async #deleteRoute(route: Route, limit: LimitFunction, signal: AbortSignal): Promise<void> {
    const start = performance.now();
    await limit(async () => {
      if (signal.aborted) return;
      const fields = { route: route.name ?? '', cidr: route.destinationCIDR, targetNode: route.targetNode };
      this.#log.info('Deleting route', fields);
      try {
        await this.#o.routes.deleteRoute(this.#o.clusterName, route, signal);
        this.#log.info('Deleted route', { ...fields, after: formatGoDuration(performance.now() - start) });
      } catch (err) {
        this.#log.error(err, 'Could not delete route', {
          ...fields,
          after: formatGoDuration(performance.now() - start),
        });
      }
    });
  }

  async #createRoute(c: PlannedCreate, plan: RoutePlan, limit: LimitFunction, signal: AbortSignal): Promise<void> {
    const cidr = c.route.destinationCIDR;
    try {
      await retryOnConflict(
        async () => {
          const start = performance.now();
          await limit(async () => {
            if (signal.aborted) throw signal.reason ?? new Error('aborted');
            this.#log.info('Creating route', {
              node: c.nodeName,
              cidr,
              nameHint: c.nameHint,
              throttled: formatGoDuration(performance.now() - start),
            });
            try {
              await this.#o.routes.createRoute(this.#o.clusterName, c.nameHint, c.route, signal);
            } catch (err) {
              const msg = `Could not create route ${c.nameHint} ${cidr} for node ${c.nodeName} after ${formatGoDuration(
                performance.now() - start,
              )}: ${errorMessage(err)}`;
              if (!signal.aborted)
                this.#o.recorder?.event(nodeReference(c.node), 'Warning', 'FailedToCreateRoute', msg);
              this.#log.v(4).info(msg);
              throw err;
            }
          });
          plan.markCreated(c.nodeName, cidr);
          this.#log.info('Created route', {
            node: c.nodeName,
            cidr,
            nameHint: c.nameHint,
            after: formatGoDuration(performance.now() - start),
          });
        },
        { backoff: UPDATE_NETWORK_CONDITION_BACKOFF, signal },
      );
    } catch (err) {
      if (!signal.aborted) {
        this.#log.error(err, 'Could not create route', { nameHint: c.nameHint, cidr, node: c.nodeName });
      }
    }
  }

  /**
   * Sets `NetworkUnavailable` on `node` (the cached object): `False`/`RouteCreated` when `routesCreated`, else
   * `True`/`NoRouteCreated`; skipped when the Node already has exactly that status and reason, and (beyond
   * upstream, decision 0304) when this controller already wrote that outcome successfully and the cache still
   * holds the Node's version from before that write. Both timestamps are set to now. Conflicts are retried with
   * {@link UPDATE_NETWORK_CONDITION_BACKOFF}.
   * @throws the patch error once retries end (it is logged too).
   */
  async updateNetworkingCondition(node: V1Node, routesCreated: boolean, signal: AbortSignal): Promise<void> {
    const name = node.metadata?.name ?? '';
    if (!networkConditionNeedsUpdate(node, routesCreated)) {
      this.#writes.forget(name);
      this.#log
        .v(2)
        .info(`set node ${name} with NodeNetworkUnavailable=${!routesCreated} was canceled because it is already set`);
      return;
    }
    if (this.#writes.awaitingCache(node, routesCreated)) {
      this.#log
        .v(2)
        .info(
          `set node ${name} with NodeNetworkUnavailable=${!routesCreated} was canceled because it was written and the Node cache has not caught up yet`,
          { resourceVersion: node.metadata?.resourceVersion },
        );
      return;
    }
    const previous = node.status?.conditions?.find((c) => c.type === NETWORK_UNAVAILABLE);
    this.#log.info('Patching node status', { node: name, routesCreated, previous });
    try {
      await retryOnConflict(
        () =>
          this.#o.client.patchNodeStatus(
            { name, body: networkConditionPatch(networkUnavailableCondition(routesCreated, this.#now())) },
            // The answer is not read (upstream `SetNodeCondition` discards it too): not parsed either.
            discardResponse(patchOptions('strategic', { signal })),
          ),
        { backoff: UPDATE_NETWORK_CONDITION_BACKOFF, signal },
      );
      this.#writes.written(node, routesCreated);
    } catch (err) {
      this.#writes.forget(name);
      this.#log.error(err, 'Error updating node', { node: name });
      throw err;
    }
  }
}

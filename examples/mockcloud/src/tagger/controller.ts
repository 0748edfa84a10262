/**
 * The tagger controller, built as every ccm-kit controller is — the reconcile contract of
 * `@ccm-kit/runtime` (`QueueWorker`, run by `runController`, see docs/concepts.md):
 * - **queue** `mockcloud-tagger` with one key, `servers`: every pass reconciles all servers, so a burst of
 *   Node events coalesces into one pass;
 * - **event handlers**: a Node added, deleted, or changing providerID or zone queues the key `minIntervalMs`
 *   later; a resync queues it every `periodMs` (the first time at once);
 * - **reconcile function** {@link TaggerController.reconcileServers}: one pass (list servers, plan, apply);
 *   it throws when a server update failed, so the runtime loop retries it (after one period).
 * Nodes are read from the shared informer's cache, so a pass costs no Kubernetes API calls.
 */
import { type Informer, LABEL_TOPOLOGY_ZONE } from '@ccm-kit/cloud-provider';
import { type Logger, metricsRegistry } from '@ccm-kit/runtime';
import { type QueueWorker, runController } from '@ccm-kit/runtime/controller';
import { itemExponentialFailureRateLimiter, Workqueue } from '@ccm-kit/runtime/workqueue';
import type { V1Node } from '@kubernetes/client-node';
import { Counter } from 'prom-client';
import type { MockCloudClient } from '../client/index.js';
import { planServerLabels } from './plan.js';

/** The tagger's queue name (the `name` label of its `workqueue_*` metrics). */
export const TAGGER_QUEUE_NAME = 'mockcloud-tagger';
/** The single key of the tagger's queue: "reconcile every server". */
export const TAGGER_KEY = 'servers';

/** Options of {@link TaggerController}. Durations in ms. */
export interface TaggerOptions {
  client: MockCloudClient;
  /** The shared Node informer (`ctx.informers.nodes()`). */
  nodes: Informer<V1Node>;
  clusterID: string;
  /** Period of full passes, in ms. */
  periodMs: number;
  /** Delay between a Node event and the pass it queues, in ms (events meanwhile share that pass); default 1000. */
  minIntervalMs?: number;
  logger: Logger;
}

/** Result of one pass. */
export interface TaggerPassResult {
  /** Servers whose labels were changed. */
  updated: number;
  /** Servers whose update failed (the pass continues with the others). */
  failed: number;
}

let passes: Counter<'result'> | undefined;
function passCounter(): Counter<'result'> {
  passes ??=
    (metricsRegistry.getSingleMetric('mockcloud_tagger_passes_total') as Counter<'result'> | undefined) ??
    new Counter({
      name: 'mockcloud_tagger_passes_total',
      help: 'Passes of the mockcloud tagger controller, by result (success or error).',
      labelNames: ['result'],
      registers: [metricsRegistry],
    });
  return passes;
}

function relevantChange(a: V1Node, b: V1Node): boolean {
  return (
    a.spec?.providerID !== b.spec?.providerID ||
    a.metadata?.labels?.[LABEL_TOPOLOGY_ZONE] !== b.metadata?.labels?.[LABEL_TOPOLOGY_ZONE]
  );
}

/** Keeps cloud server labels in step with the cluster's Nodes. */
export class TaggerController {
  /** The queue (one key, {@link TAGGER_KEY}); a failed pass is retried after one period. */
  readonly queue: Workqueue<string>;
  readonly #o: TaggerOptions;
  readonly #minIntervalMs: number;
  readonly #removeHandlers: (() => void)[] = [];
  /** Consecutive failed passes (reset by a successful one). */
  consecutiveFailures = 0;

  /** Builds the queue and registers the Node event handlers; nothing runs until {@link TaggerController.run}. */
  constructor(options: TaggerOptions) {
    this.#o = options;
    this.#minIntervalMs = options.minIntervalMs ?? 1000;
    this.queue = new Workqueue<string>({
      name: TAGGER_QUEUE_NAME,
      // A failed pass waits one period, so three failures in a row (the health check) take three periods.
      rateLimiter: itemExponentialFailureRateLimiter(options.periodMs, options.periodMs),
    });
    this.#registerEventHandlers();
  }

  #registerEventHandlers(): void {
    const enqueue = () => this.queue.addAfter(TAGGER_KEY, this.#minIntervalMs);
    this.#removeHandlers.push(
      this.#o.nodes.addEventHandler({
        onAdd: (_n, initial) => {
          if (!initial) enqueue();
        },
        onUpdate: (a, b) => {
          if (relevantChange(a, b)) enqueue();
        },
        onDelete: enqueue,
      }),
    );
  }

  /**
   * Runs until `signal` aborts: waits for the Node cache, then one worker drains the queue while a resync
   * queues a full pass every `periodMs`. Resolves once stopped (the queue is shut down, the handlers
   * removed). Never rejects.
   */
  run(signal: AbortSignal): Promise<void> {
    return runController(signal, {
      name: TAGGER_QUEUE_NAME,
      logger: this.#o.logger,
      informers: [this.#o.nodes],
      queues: [{ ...this.worker(), workers: 1 }],
      // The resync: a full pass queued at once, then every period after the last was queued (sliding).
      passes: [{ run: () => this.queue.add(TAGGER_KEY), periodMs: this.#o.periodMs }],
      removeHandlers: this.#removeHandlers,
    });
  }

  /** The queue's worker for the runtime loop: reconcile function {@link TaggerController.reconcileServers}. */
  worker(): QueueWorker<string> {
    return {
      name: TAGGER_QUEUE_NAME,
      queue: this.queue,
      reconcile: (_key, signal) => this.reconcileServers(signal),
      logger: this.#o.logger,
      onError: ({ err }) => this.#o.logger.error(err, 'Tagger pass failed'),
    };
  }

  /**
   * One counted pass ({@link TaggerController.runOnce}): updates `consecutiveFailures` and
   * `mockcloud_tagger_passes_total{result}`.
   * @throws the listing error, or `<n> server label update(s) failed` (the loop then retries the pass).
   */
  async reconcileServers(signal: AbortSignal): Promise<void> {
    let result: TaggerPassResult;
    try {
      result = await this.runOnce(signal);
    } catch (err) {
      if (!signal.aborted) this.#countPass(false);
      throw err;
    }
    this.#countPass(result.failed === 0);
    if (result.failed > 0) throw new Error(`${result.failed} server label update(s) failed`);
  }

  #countPass(ok: boolean): void {
    this.consecutiveFailures = ok ? 0 : this.consecutiveFailures + 1;
    passCounter().inc({ result: ok ? 'success' : 'error' });
  }

  /**
   * One pass: lists all servers, plans, and applies each label update.
   * @throws the listing error; per-server update errors are logged and counted in `failed`.
   */
  async runOnce(signal?: AbortSignal): Promise<TaggerPassResult> {
    const servers = await this.#o.client.listServers({ signal });
    const updates = planServerLabels(this.#o.nodes.lister.list(), servers, this.#o.clusterID);
    let updated = 0;
    let failed = 0;
    for (const u of updates) {
      try {
        await this.#o.client.setServerLabels(u.serverID, u.labels, signal);
        updated++;
        this.#o.logger.v(2).info('Updated server labels', { server: u.serverID, action: u.action });
      } catch (err) {
        if (signal?.aborted) throw err;
        failed++;
        this.#o.logger.error(err, 'Failed to update server labels', { server: u.serverID });
      }
    }
    return { updated, failed };
  }
}

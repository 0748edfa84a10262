/**
 * The tagger controller's loop: a full pass (list servers, plan, apply) every `periodMs`, and soon
 * after a Node is added, deleted, or changes providerID or zone (but never more often than
 * `minIntervalMs`). Reads Nodes from the shared informer's cache, so it costs no Kubernetes API calls.
 */
import { type Informer, LABEL_TOPOLOGY_ZONE } from '@ccm-kit/cloud-provider';
import { type Logger, metricsRegistry, sleep } from '@ccm-kit/runtime';
import type { V1Node } from '@kubernetes/client-node';
import { Counter } from 'prom-client';
import type { MockCloudClient } from '../client/index.js';
import { planServerLabels } from './plan.js';

/** Options of {@link TaggerController}. Durations in ms. */
export interface TaggerOptions {
  client: MockCloudClient;
  /** The shared Node informer (`ctx.informers.nodes()`). */
  nodes: Informer<V1Node>;
  clusterID: string;
  /** Period of full passes, in ms. */
  periodMs: number;
  /** Shortest time between two passes, in ms; default 1000. */
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
  readonly #o: TaggerOptions;
  #wake: (() => void) | undefined;
  #pending = false;
  /** Consecutive failed passes (reset by a successful one). */
  consecutiveFailures = 0;

  constructor(options: TaggerOptions) {
    this.#o = options;
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

  /** Runs passes until `signal` aborts; resolves then. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.#o.logger;
    while (!this.#o.nodes.hasSynced()) {
      if (!(await sleep(100, signal))) return;
    }
    const nudge = () => {
      this.#pending = true;
      this.#wake?.();
    };
    const remove = this.#o.nodes.addEventHandler({
      onAdd: (_n, initial) => {
        if (!initial) nudge();
      },
      onUpdate: (a, b) => {
        if (relevantChange(a, b)) nudge();
      },
      onDelete: nudge,
    });
    try {
      while (!signal.aborted) {
        this.#pending = false;
        const started = Date.now();
        try {
          const r = await this.runOnce(signal);
          this.consecutiveFailures = r.failed > 0 ? this.consecutiveFailures + 1 : 0;
          passCounter().inc({ result: r.failed > 0 ? 'error' : 'success' });
        } catch (err) {
          if (signal.aborted) break;
          this.consecutiveFailures++;
          passCounter().inc({ result: 'error' });
          log.error(err, 'Tagger pass failed');
        }
        const minGap = this.#o.minIntervalMs ?? 1000;
        if (!(await sleep(Math.max(0, started + minGap - Date.now()), signal))) break;
        if (!this.#pending)
          await this.#waitForWake(Math.max(0, started + this.#o.periodMs - Date.now()), signal);
      }
    } finally {
      remove();
    }
  }

  #waitForWake(ms: number, signal: AbortSignal): Promise<void> {
    const ac = new AbortController();
    const onAbort = () => ac.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    this.#wake = () => ac.abort();
    return sleep(ms, ac.signal).then(() => {
      this.#wake = undefined;
      signal.removeEventListener('abort', onAbort);
    });
  }
}

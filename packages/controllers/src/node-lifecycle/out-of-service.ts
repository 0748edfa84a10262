/**
 * The out-of-service taint, opt-in (`--out-of-service-taint-after`, no upstream counterpart): a Node whose
 * machine the cloud has reported shut down, pass after pass, for that long gets
 * `node.kubernetes.io/out-of-service=nodeshutdown:NoExecute` (KEP-2268 non-graceful node shutdown: the
 * kube-controller-manager then force-deletes its Pods and detaches their volumes), and loses it once the machine
 * runs again. The taint is recorded as ours with the annotation {@link OUT_OF_SERVICE_ANNOTATION}, written in the
 * same PATCH, so a taint a person added is never removed, and never added over. Nothing is done on a cloud error
 * or an unknown answer (docs/decisions/0105-out-of-service-taint.md).
 */
import { addOrUpdateTaint, type NodeClient, removeTaint, retryOnConflict, taintExists } from '@ccm-kit/cloud-provider';
import { nodeTaintsPatch } from '@ccm-kit/cloud-provider/internal';
import { formatGoDuration, type Logger, metricsRegistry } from '@ccm-kit/runtime';
import type { EventRecorder } from '@ccm-kit/runtime/events';
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { Counter } from 'prom-client';
import { nodeReference } from '../shared/index.js';

/** The taint, as the Kubernetes docs give it for a machine that is shut down. */
export const OUT_OF_SERVICE_TAINT: Readonly<V1Taint> = Object.freeze({
  key: 'node.kubernetes.io/out-of-service',
  value: 'nodeshutdown',
  effect: 'NoExecute',
});
/** Set (to the time, RFC 3339) on a Node when this controller added the taint; removed with it. */
export const OUT_OF_SERVICE_ANNOTATION = 'cloud-node-lifecycle.ccm-kit.io/out-of-service-taint-added';
/** Event reasons (Normal), on the Node. */
export const OUT_OF_SERVICE_TAINT_ADDED = 'OutOfServiceTaintAdded';
export const OUT_OF_SERVICE_TAINT_REMOVED = 'OutOfServiceTaintRemoved';

let counters: { added: Counter; removed: Counter } | undefined;

/** `cloud_node_lifecycle_out_of_service_taints_{added,removed}_total`, registered when the option is on. */
function outOfServiceCounters(): { added: Counter; removed: Counter } {
  const counter = (name: string, help: string) =>
    (metricsRegistry.getSingleMetric(name) as Counter | undefined) ??
    new Counter({ name, help, registers: [metricsRegistry] });
  counters ??= {
    added: counter(
      'cloud_node_lifecycle_out_of_service_taints_added_total',
      'Out-of-service taints cloud-node-lifecycle-controller added to Nodes whose machine stayed shut down.',
    ),
    removed: counter(
      'cloud_node_lifecycle_out_of_service_taints_removed_total',
      'Out-of-service taints cloud-node-lifecycle-controller removed because the machine ran again.',
    ),
  };
  return counters;
}

const ours = (node: V1Node) => node.metadata?.annotations?.[OUT_OF_SERVICE_ANNOTATION] !== undefined;
const hasTaint = (node: V1Node) => taintExists(node.spec?.taints, OUT_OF_SERVICE_TAINT as V1Taint);

/** The strategic merge patch of `old`'s taints and one annotation (`null` deletes it), with its resourceVersion. */
function patchOf(old: V1Node, updated: V1Node, annotation: string | null): object {
  const patch = nodeTaintsPatch(old, updated) as { metadata?: Record<string, unknown> };
  return { ...patch, metadata: { ...patch.metadata, annotations: { [OUT_OF_SERVICE_ANNOTATION]: annotation } } };
}

/** What {@link OutOfServiceTaints} needs. */
export interface OutOfServiceOptions {
  /** `--out-of-service-taint-after` in ms (> 0). */
  afterMs: number;
  client: NodeClient;
  recorder: EventRecorder;
  logger: Logger;
  /** The clock (ms); tests inject one. */
  now?: () => number;
}

/** The opt-in out-of-service taint of the lifecycle controller: one clock per Node that is shut down. */
export class OutOfServiceTaints {
  readonly #afterMs: number;
  readonly #client: NodeClient;
  readonly #recorder: EventRecorder;
  readonly #log: Logger;
  readonly #now: () => number;
  /** When each Node was first seen shut down, in this run of shut-down answers. */
  readonly #since = new Map<string, number>();
  readonly #metrics = outOfServiceCounters();

  constructor(options: OutOfServiceOptions) {
    this.#afterMs = options.afterMs;
    this.#client = options.client;
    this.#recorder = options.recorder;
    this.#log = options.logger;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The cloud answered "shut down" for the Node's machine: starts its clock, and once the clock reaches
   * `afterMs` adds the taint and the annotation in one PATCH (a Node that already has the taint, ours or a
   * person's, is left as it is).
   * @throws the API error of the write (the next pass tries again).
   */
  async shutDown(node: V1Node, signal?: AbortSignal): Promise<void> {
    const name = node.metadata!.name!;
    const since = this.#since.get(name) ?? this.#now();
    this.#since.set(name, since);
    if (hasTaint(node) || this.#now() - since < this.#afterMs) return;
    const added = await retryOnConflict(
      async (attempt) => {
        const old = await this.#client.getNode(name, attempt === 0 ? { resourceVersion: '0' } : undefined);
        if (hasTaint(old)) return false;
        const at = new Date(this.#now());
        const { node: updated } = addOrUpdateTaint(old, { ...OUT_OF_SERVICE_TAINT, timeAdded: at });
        await this.#client.patchNode(name, patchOf(old, updated, at.toISOString()));
        return true;
      },
      { signal },
    );
    if (!added) return;
    this.#metrics.added.inc();
    const shutFor = formatGoDuration(this.#now() - since);
    this.#log.info('Added the out-of-service taint: the machine stayed shut down', { node: name, for: shutFor });
    this.#recorder.event(
      nodeReference(node),
      'Normal',
      OUT_OF_SERVICE_TAINT_ADDED,
      `Added taint ${OUT_OF_SERVICE_TAINT.key}=${OUT_OF_SERVICE_TAINT.value}:${OUT_OF_SERVICE_TAINT.effect}: the machine has been shut down for ${shutFor}`,
    );
  }

  /**
   * The Node's machine runs (Ready, or the cloud answered "not shut down"): stops its clock and removes the
   * taint and the annotation if this controller added them; a person's taint stays.
   * @throws the API error of the write (the next pass tries again).
   */
  async running(node: V1Node, signal?: AbortSignal): Promise<void> {
    const name = node.metadata!.name!;
    this.#since.delete(name);
    if (!ours(node)) return;
    const removed = await retryOnConflict(
      async (attempt) => {
        const old = await this.#client.getNode(name, attempt === 0 ? { resourceVersion: '0' } : undefined);
        if (!ours(old)) return false;
        const { node: updated } = removeTaint(old, OUT_OF_SERVICE_TAINT as V1Taint);
        await this.#client.patchNode(name, patchOf(old, updated, null));
        return hasTaint(old);
      },
      { signal },
    );
    if (!removed) return;
    this.#metrics.removed.inc();
    this.#log.info('Removed the out-of-service taint: the machine runs again', { node: name });
    this.#recorder.event(
      nodeReference(node),
      'Normal',
      OUT_OF_SERVICE_TAINT_REMOVED,
      `Removed taint ${OUT_OF_SERVICE_TAINT.key}: the machine runs again`,
    );
  }

  /** Drops the clocks of Nodes that are gone (`names`: the Nodes of the pass). */
  forgetAllBut(names: ReadonlySet<string>): void {
    for (const name of this.#since.keys()) if (!names.has(name)) this.#since.delete(name);
  }
}

/**
 * Shared helpers of the cloud-node and cloud-node-lifecycle integration tests: a client factory and a
 * shared Node informer on the file's control plane, Node creation that waits for the informer, a recording
 * EventRecorder, and cleanup of the Nodes a test created.
 */
import type { EventObject, EventRecorder, EventType } from '@ccm-kit/runtime';
import {
  type ClientFactory,
  createClientFactory,
  createLogger,
  isNotFound,
  SharedInformerFactory,
} from '@ccm-kit/runtime';
import type { ControlPlane } from '@ccm-kit/testing';
import { CoreV1Api, type V1Node, type V1NodeAddress, type V1Taint } from '@kubernetes/client-node';

export const UNINITIALIZED_TAINT: V1Taint = {
  key: 'node.cloudprovider.kubernetes.io/uninitialized',
  value: 'true',
  effect: 'NoSchedule',
};
export const EXTRA_TAINT: V1Taint = { key: 'ImproveCoverageTaint', value: 'true', effect: 'NoSchedule' };
export const CLOUD_ADDRESSES: V1NodeAddress[] = [
  { type: 'Hostname', address: 'node0.cloud.internal' },
  { type: 'InternalIP', address: '10.0.0.1' },
  { type: 'ExternalIP', address: '132.143.154.163' },
];

/** One recorded event. */
export interface RecordedEvent {
  object: EventObject;
  type: EventType;
  reason: string;
  message: string;
}

/** An EventRecorder that keeps every event in memory. */
export class RecordingRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];
  event(object: EventObject, type: EventType, reason: string, message: string): void {
    this.events.push({ object, type, reason, message });
  }
  eventf(object: EventObject, type: EventType, reason: string, format: string, ...args: unknown[]): void {
    this.event(object, type, reason, `${format} ${args.join(' ')}`);
  }
  annotatedEventf(
    object: EventObject,
    _annotations: Record<string, string>,
    type: EventType,
    reason: string,
    format: string,
    ...args: unknown[]
  ): void {
    this.eventf(object, type, reason, format, ...args);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` every 50 ms until it returns a truthy value; throws `what` after `timeoutMs`. */
export async function eventually<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(50);
  }
}

/** The per-file test environment on top of a control plane. */
export class NodeTestEnv {
  readonly clients: ClientFactory;
  readonly core: CoreV1Api;
  readonly informers: SharedInformerFactory;
  readonly #abort = new AbortController();
  readonly #created = new Set<string>();
  #seq = 0;

  constructor(cp: ControlPlane) {
    this.clients = createClientFactory({ kubeConfig: cp.kubeConfig, qps: -1 });
    this.core = this.clients.client('node-test', CoreV1Api);
    this.informers = new SharedInformerFactory(this.clients);
    this.informers.nodes();
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  async start(): Promise<void> {
    this.informers.start(this.#abort.signal);
    if (!(await this.informers.waitForCacheSync(this.#abort.signal)))
      throw new Error('informers did not sync');
  }

  stop(): void {
    this.#abort.abort();
  }

  /** A unique Node name for this file. */
  name(prefix: string): string {
    return `${prefix.toLowerCase().replace(/[^a-z0-9-]/g, '-')}-${Date.now().toString(36)}-${++this.#seq}`;
  }

  /**
   * Creates a Node (status included, as a kubelet registers it) and waits until the informer has it.
   * Returns the stored Node.
   */
  async createNode(node: V1Node): Promise<V1Node> {
    const name = node.metadata?.name ?? '';
    this.#created.add(name);
    const created = await this.core.createNode({ body: { apiVersion: 'v1', kind: 'Node', ...node } });
    await this.waitForInformer(name, created.metadata?.resourceVersion ?? '');
    return created;
  }

  /** Replaces the Node's status (for conditions set after creation) and waits for the informer. */
  async setStatus(name: string, status: V1Node['status']): Promise<V1Node> {
    const current = await this.core.readNode({ name });
    const updated = await this.core.replaceNodeStatus({ name, body: { ...current, status } });
    await this.waitForInformer(name, updated.metadata?.resourceVersion ?? '');
    return updated;
  }

  /** Waits until the informer's copy of `name` has at least `resourceVersion`. */
  async waitForInformer(name: string, resourceVersion: string): Promise<void> {
    const lister = this.informers.nodes().lister;
    await eventually(() => {
      const rv = lister.get(name)?.metadata?.resourceVersion;
      return rv !== undefined && BigInt(rv) >= BigInt(resourceVersion || '0');
    }, `informer to see node ${name}@${resourceVersion}`);
  }

  /** The stored Node, or undefined when it does not exist. */
  async getNode(name: string): Promise<V1Node | undefined> {
    try {
      return await this.core.readNode({ name });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Deletes every Node this env created (ignores those already gone). */
  async cleanup(): Promise<void> {
    const names = [...this.#created];
    this.#created.clear();
    await Promise.all(
      names.map(async (name) => {
        try {
          await this.core.deleteNode({ name });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }),
    );
  }

  /** Core/v1 events in `default` about the named Node. */
  async nodeEvents(name: string) {
    const list = await this.core.listNamespacedEvent({
      namespace: 'default',
      fieldSelector: `involvedObject.name=${name}`,
    });
    return list.items;
  }
}

/**
 * The Node's taints without `node.kubernetes.io/not-ready`, which the apiserver's TaintNodesByCondition
 * admission plugin adds to every Node created without a Ready=True condition (as for a real kubelet).
 */
export function userTaints(node: V1Node | undefined): V1Taint[] {
  return (node?.spec?.taints ?? []).filter((t) => t.key !== 'node.kubernetes.io/not-ready');
}

/** A quiet logger for controllers under test. */
export const testLogger = createLogger('node-test');

/** A Node as a kubelet with `--cloud-provider=external` registers it. */
export function kubeletNode(
  name: string,
  opts: {
    taints?: V1Taint[];
    providerID?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    addresses?: V1NodeAddress[];
    ready?: 'True' | 'False' | 'Unknown';
  } = {},
): V1Node {
  const node: V1Node = {
    metadata: { name, labels: opts.labels, annotations: opts.annotations },
    spec: { taints: opts.taints ?? [UNINITIALIZED_TAINT], providerID: opts.providerID },
    status: { addresses: opts.addresses },
  };
  if (opts.ready) {
    node.status!.conditions = [
      {
        type: 'Ready',
        status: opts.ready,
        reason: 'KubeletReady',
        message: 'test',
        lastHeartbeatTime: new Date(),
        lastTransitionTime: new Date(),
      },
    ];
  }
  return node;
}

/**
 * What most tests against a control plane build first: a client factory, a CoreV1 client, shared informers
 * that live as long as the cluster handle, unique names, and deletion of the objects a test created.
 */
import {
  type ClientFactory,
  createClientFactory,
  isNotFound,
  SharedInformerFactory,
} from '@ccm-kit/runtime';
import { CoreV1Api } from '@kubernetes/client-node';
import type { ControlPlane } from '../control-plane/control-plane.js';
import { uniqueName } from './names.js';

/** Options of {@link TestCluster}. */
export interface TestClusterOptions {
  /** Client-side rate limit in requests per second (default -1: none, tests should not wait on it). */
  readonly qps?: number;
  /** Client name of {@link TestCluster.core} (its user agent suffix; default `test`). */
  readonly clientName?: string;
}

/** A client factory, informers and cleanup on a running {@link ControlPlane}. */
export class TestCluster {
  /** The control plane this cluster talks to (its `kubeConfig` is the admin's). */
  readonly controlPlane: ControlPlane;
  /** The runtime's client factory, as the app builds it (without rate limit by default). */
  readonly clients: ClientFactory;
  /** A CoreV1 client from {@link clients}. */
  readonly core: CoreV1Api;
  /** Shared informers; {@link startInformers} runs them until {@link stop}. */
  readonly informers: SharedInformerFactory;
  readonly #abort = new AbortController();
  readonly #nodes = new Set<string>();

  constructor(controlPlane: ControlPlane, options: TestClusterOptions = {}) {
    this.controlPlane = controlPlane;
    this.clients = createClientFactory({ kubeConfig: controlPlane.kubeConfig, qps: options.qps ?? -1 });
    this.core = this.clients.client(options.clientName ?? 'test', CoreV1Api);
    this.informers = new SharedInformerFactory(this.clients);
  }

  /** Aborts when {@link stop} is called; the informers run on it. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /**
   * Starts every informer created so far that is not running, and waits until all have synced.
   * Call it again after a controller asked for new informers.
   * @throws Error when the cluster is stopped before the caches synced.
   */
  async startInformers(): Promise<void> {
    this.informers.start(this.#abort.signal);
    if (!(await this.informers.waitForCacheSync(this.#abort.signal)))
      throw new Error('TestCluster: the informer caches did not sync (the cluster was stopped)');
  }

  /** A unique name (see {@link uniqueName}). */
  name(prefix: string): string {
    return uniqueName(prefix);
  }

  /**
   * Creates a Namespace with a unique name starting with `prefix`. It is left in place: names never repeat,
   * and deleting a namespace would start its own cascade while the next test runs.
   */
  async createNamespace(prefix = 'test'): Promise<string> {
    const name = uniqueName(prefix);
    await this.core.createNamespace({ body: { metadata: { name } } });
    return name;
  }

  /** Makes {@link cleanup} delete the Node `name` (created by the test in any way). */
  deleteNodeLater(name: string): void {
    this.#nodes.add(name);
  }

  /** Forgets a Node the test deleted itself. */
  forgetNode(name: string): void {
    this.#nodes.delete(name);
  }

  /** Deletes the Nodes registered with {@link deleteNodeLater}; those already gone are ignored. */
  async cleanup(): Promise<void> {
    const nodes = [...this.#nodes];
    this.#nodes.clear();
    await Promise.all(nodes.map((name) => ignoreNotFound(this.core.deleteNode({ name }))));
  }

  /** Stops the informers and closes the clients (the control plane is left running). */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.informers.shutdown();
    await this.clients.close();
  }
}

/** Resolves `undefined` when `p` rejects with NotFound (404); rethrows any other error. */
export async function ignoreNotFound<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * True when `read` rejects with NotFound (404), false when it resolves; rethrows any other error. For
 * waiting until an object is gone: `eventuallyValue(() => isGone(core.readNode({ name })))`.
 */
export async function isGone(read: Promise<unknown>): Promise<boolean> {
  return (await ignoreNotFound(read.then(() => false))) ?? true;
}

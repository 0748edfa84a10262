/**
 * What most tests against a control plane build first: a client factory, a CoreV1 client, shared informers
 * that live as long as the cluster handle, unique names, and deletion of the objects a test created.
 */
import { type ClientFactory, createClientFactory, isNotFound } from '@ccm-kit/runtime/client';
import { SharedInformerFactory } from '@ccm-kit/runtime/informers';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
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

  /**
   * Creates `node` (its `status` included, as a kubelet registers it), registers it for {@link cleanup}, and
   * waits until the Node informer of {@link informers} has delivered it. The Node informer must be running
   * (ask for `informers.nodes()` before {@link startInformers}, e.g. in `useTestCluster`'s `setup`).
   * @returns the Node as the API server stored it.
   * @throws the API error of the create; an Error naming the Node after `timeoutMs` (default 30 000 ms).
   */
  async createNodeAndWait(node: V1Node, timeoutMs = 30_000): Promise<V1Node> {
    const name = node.metadata?.name ?? '';
    this.deleteNodeLater(name);
    const created = await this.core.createNode({ body: { apiVersion: 'v1', kind: 'Node', ...node } });
    await this.waitForNode(name, created.metadata?.resourceVersion ?? '0', timeoutMs);
    return created;
  }

  /**
   * Resolves once the Node informer has delivered the Node `name` at `resourceVersion` or later (as an add or
   * an update; at once when its cache already has it). Resource versions are compared as integers, as the
   * etcd-backed API server issues them.
   * @throws Error naming the Node and the version after `timeoutMs` milliseconds (default 30 000), or when the
   *   cluster is stopped first.
   */
  waitForNode(name: string, resourceVersion: string, timeoutMs = 30_000): Promise<void> {
    const informer = this.informers.nodes();
    const atLeast = (n: V1Node | undefined) => {
      const rv = n?.metadata?.resourceVersion;
      return n?.metadata?.name === name && rv !== undefined && BigInt(rv) >= BigInt(resourceVersion || '0');
    };
    if (atLeast(informer.lister.get(name))) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      let done = false;
      let removeHandler: (() => void) | undefined;
      const finish = (err?: Error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        removeHandler?.();
        this.signal.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve();
      };
      const onAbort = () => finish(new Error(`TestCluster: stopped while waiting for Node ${name}`));
      const timer = setTimeout(
        () =>
          finish(
            new Error(`TestCluster: the Node informer did not see ${name}@${resourceVersion} within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      this.signal.addEventListener('abort', onAbort, { once: true });
      // A handler may be called during registration (the informer replays its cache to a new handler).
      const remove = informer.addEventHandler({
        onAdd: (n) => void (atLeast(n) && finish()),
        onUpdate: (_old, n) => void (atLeast(n) && finish()),
      });
      if (done) remove();
      else removeHandler = remove;
      // The cache may have caught up between the first check and the handler's registration.
      if (atLeast(informer.lister.get(name))) finish();
    });
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

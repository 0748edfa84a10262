/**
 * Test doubles for the service load-balancer controller's unit tests (the upstream harness of
 * controllers/service/controller_test.go: a recording status patcher and a queue that records
 * its calls); the informers and the event recorder are the test kit's `MemoryInformer` and
 * `RecordingEventRecorder`.
 */
import type { ServiceStatusApi } from '@ccm-kit/cloud-provider';
import { initializedNode, loadBalancerService } from '@ccm-kit/testing';
import { ApiException, type ConfigurationOptions, type V1Node, type V1Service } from '@kubernetes/client-node';
import type { KeyQueue } from '../src/service/types.js';

/** A queue recording every call; `get` hands out queued keys in order and waits when empty. */
export class RecordingQueue implements KeyQueue {
  readonly added: string[] = [];
  readonly addedAfter: { key: string; delayMs: number }[] = [];
  readonly rateLimited: string[] = [];
  readonly forgotten: string[] = [];
  readonly doneKeys: string[] = [];
  readonly #requeues = new Map<string, number>();
  readonly #pending: string[] = [];
  #waiters: ((k: string | undefined) => void)[] = [];
  #shutDown = false;

  add(key: string): void {
    this.added.push(key);
    this.#push(key);
  }
  addAfter(key: string, delayMs: number): void {
    this.addedAfter.push({ key, delayMs });
  }
  addRateLimited(key: string): void {
    this.rateLimited.push(key);
    this.#requeues.set(key, (this.#requeues.get(key) ?? 0) + 1);
  }
  forget(key: string): void {
    this.forgotten.push(key);
    this.#requeues.delete(key);
  }
  numRequeues(key: string): number {
    return this.#requeues.get(key) ?? 0;
  }
  get(): Promise<string | undefined> {
    const k = this.#pending.shift();
    if (k !== undefined) return Promise.resolve(k);
    if (this.#shutDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
  done(key: string): void {
    this.doneKeys.push(key);
  }
  shutDown(): void {
    this.#shutDown = true;
    for (const w of this.#waiters) w(undefined);
    this.#waiters = [];
  }
  /** Keys waiting to be handed out. */
  get pending(): readonly string[] {
    return this.#pending;
  }
  #push(key: string): void {
    if (this.#pending.includes(key)) return;
    const w = this.#waiters.shift();
    if (w) w(key);
    else this.#pending.push(key);
  }
}

/** One recorded `patch services/status` action. */
export interface PatchAction {
  namespace: string;
  name: string;
  patch: Record<string, unknown>;
}

/** A status client that records `patch services/status` actions and fails with `error` when set. */
export class RecordingClient implements ServiceStatusApi {
  readonly actions: PatchAction[] = [];
  error: unknown;
  async patchNamespacedServiceStatus(
    { namespace, name, body }: { namespace: string; name: string; body: object },
    options?: ConfigurationOptions,
  ): Promise<V1Service> {
    this.actions.push({ namespace, name, patch: body as Record<string, unknown> });
    this.contentTypes.push(contentTypeOf(options));
    this.answerDiscarded.push(isAnswerDiscarded(options));
    if (this.error !== undefined) throw this.error;
    return {};
  }
  /** The `Content-Type` each patch was sent with (read from the per-call middleware). */
  readonly contentTypes: (string | undefined)[] = [];
  /** Whether each patch's options carry runtime's `discardResponse` mark (the answer read, not parsed). */
  readonly answerDiscarded: boolean[] = [];
}

/** True when `options` carry the mark `discardResponse` (runtime/internal) sets. */
function isAnswerDiscarded(options: ConfigurationOptions | undefined): boolean {
  if (options === undefined) return false;
  return Object.getOwnPropertySymbols(options).some(
    (s) => s.description === 'ccm-kit.discardResponse' && (options as Record<symbol, unknown>)[s] === true,
  );
}

/** The `Content-Type` the per-call middleware of `options` sets on a request. */
function contentTypeOf(options: ConfigurationOptions | undefined): string | undefined {
  let contentType: string | undefined;
  const ctx = {
    setHeaderParam: (name: string, value: string) => {
      if (name === 'Content-Type') contentType = value;
    },
  };
  for (const mw of (options as { middleware?: { pre(c: unknown): unknown }[] } | undefined)?.middleware ?? []) {
    mw.pre(ctx);
  }
  return contentType;
}

/**
 * The error client-node 2.x throws for a failed `patch…Status` call: an `ApiException` whose message is
 * `HTTP-Code: …\nMessage: Unknown API Status Code!\nBody: …\nHeaders: …` and whose body is the raw JSON text
 * of the Kubernetes Status.
 */
export function apiError(code: number, reason: string, message: string): ApiException<string> {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code });
  return new ApiException(code, 'Unknown API Status Code!', body, { 'content-type': 'application/json' });
}

/**
 * Upstream `newService(name, type)` (controllers/service/controller_test.go), kept by name for the tests that port
 * that file (service-controller.test.ts, service-logic.test.ts): the kit's `loadBalancerService` with upstream's
 * type, one port `{port 80, TCP}` and the UID `uid-<name>`; `extra` is laid over it.
 */
export function newService(name: string, type: string, extra: Partial<V1Service> = {}): V1Service {
  const svc = loadBalancerService(name, {
    uid: `uid-${name}`,
    ports: [{ port: 80, protocol: 'TCP' }],
    spec: { type, ...extra.spec },
    ...(extra.status ? { status: extra.status } : {}),
    ...(extra.metadata ? { metadata: extra.metadata } : {}),
  });
  // Upstream's Service has nil annotations, which needsUpdate tells from empty ones (upstream quirk 10).
  if (extra.metadata?.annotations === undefined) delete svc.metadata!.annotations;
  return svc;
}

/**
 * Upstream `makeNode` (controllers/service/controller_test.go), kept by name for the tests that port that file: the
 * kit's `initializedNode` named `node` with providerID `providerID` and Ready=True unless given; `conditions`
 * replaces every condition.
 */
export function makeNode(
  opts: {
    name?: string;
    labels?: Record<string, string>;
    taints?: { key: string; effect: string; value?: string }[];
    providerID?: string;
    ready?: 'True' | 'False' | 'unset';
    conditions?: { type: string; status: string }[];
    deletionTimestamp?: Date;
  } = {},
): V1Node {
  return initializedNode(opts.name ?? 'node', {
    providerID: opts.providerID ?? 'providerID',
    ...(opts.labels ? { labels: opts.labels } : {}),
    ...(opts.taints ? { taints: opts.taints } : {}),
    ready: opts.conditions ? 'unset' : (opts.ready ?? 'True'),
    ...(opts.conditions ? { conditions: opts.conditions } : {}),
    ...(opts.deletionTimestamp ? { metadata: { deletionTimestamp: opts.deletionTimestamp } } : {}),
  });
}

/**
 * Watches a collection and records, per object name, the first time (Unix ms, harness clock) a
 * predicate held. One watch request without a resourceVersion (the server replays every existing object
 * as ADDED), resumed from the last resourceVersion when it ends, restarted from scratch on 410 Gone.
 * The harness's own observation is identical for both CCMs.
 */
import { type KubeConfig, Watch } from '@kubernetes/client-node';

interface Obj {
  metadata?: { name?: string; resourceVersion?: string };
}

export class ConvergenceObserver<T extends Obj> {
  /** Name → first time the predicate held (Unix ms). */
  readonly convergedAt = new Map<string, number>();
  /** Name → latest object seen. */
  readonly latest = new Map<string, T>();
  readonly #watch: Watch;
  readonly #path: string;
  readonly #predicate: (obj: T, type: string) => boolean;
  #expected = new Set<string>();
  #rv: string | undefined;
  #abort: AbortController | undefined;
  #stopped = false;
  #waiters: (() => void)[] = [];
  #events = 0;

  /**
   * @param path collection path, e.g. `/api/v1/nodes`
   * @param predicate whether the object has converged; `type` is the watch event type (`ADDED`,
   *   `MODIFIED`, or `DELETED` with the last state, for workloads that wait for a deletion)
   */
  constructor(kc: KubeConfig, path: string, predicate: (obj: T, type: string) => boolean) {
    this.#watch = new Watch(kc);
    this.#path = path;
    this.#predicate = predicate;
  }

  get events(): number {
    return this.#events;
  }

  /** Starts watching; resolves once the watch request has its response. */
  async start(): Promise<void> {
    this.#abort = await this.#watch.watch(
      this.#path,
      { allowWatchBookmarks: true, ...(this.#rv ? { resourceVersion: this.#rv } : {}) },
      (type: string, obj: T) => this.#onEvent(type, obj),
      (err: unknown) => this.#onDone(err),
    );
  }

  #onEvent(type: string, obj: T): void {
    this.#events++;
    if (type === 'ERROR') {
      if ((obj as { code?: number }).code === 410) this.#rv = undefined;
      return;
    }
    this.#rv = obj.metadata?.resourceVersion ?? this.#rv;
    if (type === 'BOOKMARK') return;
    const name = obj.metadata?.name;
    if (!name) return;
    if (type === 'DELETED') this.latest.delete(name);
    else this.latest.set(name, obj);
    if (!this.convergedAt.has(name) && this.#predicate(obj, type)) {
      this.convergedAt.set(name, Date.now());
      if (this.#expected.has(name)) this.#notify();
    }
  }

  #onDone(err: unknown): void {
    if (this.#stopped) return;
    if ((err as { statusCode?: number } | null)?.statusCode === 410) this.#rv = undefined;
    setTimeout(() => {
      if (!this.#stopped) this.start().catch((e: unknown) => this.#onDone(e));
    }, 100);
  }

  #notify(): void {
    const ws = this.#waiters;
    this.#waiters = [];
    for (const w of ws) w();
  }

  /** Adds names that must converge. */
  expect(names: Iterable<string>): void {
    for (const n of names) this.#expected.add(n);
  }

  /** How many expected names have converged. */
  convergedCount(): number {
    let n = 0;
    for (const name of this.#expected) if (this.convergedAt.has(name)) n++;
    return n;
  }

  /**
   * Resolves when every expected name has converged.
   * @throws Error after `timeoutMs`, or once {@link ConvergenceObserver.stop} was called, naming how many converged.
   */
  async waitAll(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.convergedCount() < this.#expected.size) {
      // A run that failed (its CCM killed) stops its observers while this wait, which lost the race, still loops:
      // its timer would hold the harness for the rest of `timeoutMs` (26 minutes for W8 at 50,000 Nodes).
      if (this.#stopped) {
        throw new Error(`observer stopped: ${this.convergedCount()} of ${this.#expected.size} converged`);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `timed out after ${timeoutMs} ms: ${this.convergedCount()} of ${this.#expected.size} converged`,
        );
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 1_000));
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#abort?.abort();
    this.#notify();
  }
}

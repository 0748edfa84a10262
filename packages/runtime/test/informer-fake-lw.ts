/** A scriptable in-memory ListerWatcher for the informer unit tests. */
import type { ListerWatcher, ListPage, ListRequest, WatchEvent, WatchRequest } from '../src/informers/index.js';

export class FakeWatch implements AsyncIterable<WatchEvent> {
  readonly req: WatchRequest;
  #queue: Array<{ ev?: WatchEvent; end?: true; err?: unknown }> = [];
  #wake: (() => void) | undefined;
  closed = false;

  constructor(req: WatchRequest) {
    this.req = req;
    req.signal.addEventListener('abort', () => this.#push({ end: true }), { once: true });
  }

  #push(x: { ev?: WatchEvent; end?: true; err?: unknown }): void {
    this.#queue.push(x);
    this.#wake?.();
  }

  send(type: WatchEvent['type'], object: Record<string, unknown>): void {
    this.#push({ ev: { type, object } });
  }

  end(): void {
    this.#push({ end: true });
  }

  fail(err: unknown): void {
    this.#push({ err });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    try {
      for (;;) {
        while (this.#queue.length === 0) await new Promise<void>((r) => (this.#wake = r));
        const x = this.#queue.shift() as { ev?: WatchEvent; end?: true; err?: unknown };
        if (x.err !== undefined) throw x.err;
        if (x.end) return;
        yield x.ev as WatchEvent;
      }
    } finally {
      this.closed = true;
    }
  }
}

export class FakeListerWatcher implements ListerWatcher {
  lists: ListRequest[] = [];
  watches: FakeWatch[] = [];
  /** Answers LIST calls; replace to script pages or errors. */
  listImpl: (req: ListRequest) => Promise<ListPage> = async () => ({ items: [], resourceVersion: '1' });
  #watchWaiters: Array<(w: FakeWatch) => void> = [];
  watchError: unknown;
  /** Absent unless a test sets it, as for a list-watch without a transport that tracks the server's answers. */
  waitForServer?: ListerWatcher['waitForServer'];
  /** Absent unless a test sets it (see {@link waitForServer}). */
  retryDelayMs?: ListerWatcher['retryDelayMs'];

  async list(req: ListRequest): Promise<ListPage> {
    this.lists.push(req);
    return this.listImpl(req);
  }

  watch(req: WatchRequest): AsyncIterable<WatchEvent> {
    if (this.watchError !== undefined) {
      const err = this.watchError;
      this.watchError = undefined;
      // eslint-disable-next-line require-yield -- a stream that fails before its first event
      return (async function* () {
        throw err;
      })();
    }
    const w = new FakeWatch(req);
    this.watches.push(w);
    const waiters = this.#watchWaiters;
    this.#watchWaiters = [];
    for (const r of waiters) r(w);
    return w;
  }

  /** Resolves with the watch opened after `count` watches exist (default: the next one). */
  nextWatch(count = this.watches.length + 1): Promise<FakeWatch> {
    if (this.watches.length >= count) return Promise.resolve(this.watches[count - 1] as FakeWatch);
    return new Promise((resolve) => {
      const check = (w: FakeWatch) => {
        if (this.watches.length >= count) resolve(this.watches[count - 1] as FakeWatch);
        else this.#watchWaiters.push(check);
        void w;
      };
      this.#watchWaiters.push(check);
    });
  }
}

export const nodeObj = (name: string, rv: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, resourceVersion: rv, managedFields: [{ manager: 'kubelet' }] },
  ...extra,
});

/** A list item as the server sends it inside a List: no apiVersion/kind. */
export const listItem = (name: string, rv: string, ns?: string) => ({
  metadata: {
    name,
    resourceVersion: rv,
    ...(ns ? { namespace: ns } : {}),
    managedFields: [{ manager: 'm' }],
  },
  spec: {},
});

export { until } from './until.js';

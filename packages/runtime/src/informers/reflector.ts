/**
 * The list-then-watch loop behind an informer (client-go tools/cache `Reflector.ListAndWatch`):
 * - when the ListerWatcher supports it, the initial state is streamed (client-go `watchList`): one WATCH
 *   with `sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan` and bookmarks, whose ADDED events
 *   up to the BOOKMARK annotated `k8s.io/initial-events-end` are the state; the same stream then goes on
 *   as the watch. If the server rejects it (an HTTP error other than 410/429/5xx, or a stream that ends
 *   before that bookmark), the reflector falls back to LIST + WATCH from then on, as client-go does;
 * - otherwise a paged LIST (`limit`, `continue`; a continue token that expires restarts the list unpaged);
 * - then WATCH from the list's resourceVersion with bookmarks and a random 5–10 min
 *   `timeoutSeconds`; a watch the server ends normally is re-opened at once from the last version;
 * - on 410 Gone / "too old resource version" it relists at once; on any other error, or a silent watch,
 *   it retries the watch after an exponential, jittered backoff (800 ms .. 30 s); a failed LIST is
 *   retried the same way. When the failure got no answer from the server (connection refused or reset,
 *   a silent watch), the backoff ends early as soon as the server answers again (`waitForServer`), and
 *   the backoff starts over after every successful LIST or watch (decision 0032); a failure the server
 *   answered (its authorizer not synced yet: 403) right after it came back is retried within a second
 *   (`retryDelayMs`). It never gives up until the signal aborts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '@ccm-kit/cloud-provider/internal';
import { isGone, statusCode } from '../client/errors.js';
import { createLogger, type Logger } from '../logging.js';
import { ReconnectBackoff, type ReconnectBackoffOptions } from './backoff.js';
import {
  INITIAL_EVENTS_END_ANNOTATION,
  type ListerWatcher,
  type ListPage,
  type WatchEvent,
  WatchInactivityError,
} from './list-watch.js';
import { informerListsTotal, informerWatchErrorsTotal } from './metrics.js';
import { untilAborted } from '../wait/until-aborted.js';

/** Where the reflector delivers what it reads. Exceptions thrown here are the sink's bug and end a watch. */
export interface ReflectorSink {
  /** The full state after a LIST. */
  replace(items: unknown[], resourceVersion: string, list: Pick<ListPage, 'apiVersion' | 'kind'>): void;
  /** One ADDED, MODIFIED or DELETED event. */
  event(ev: WatchEvent): void;
}

/** Options of a {@link Reflector}. */
export interface ReflectorOptions {
  /** For logs and metric labels, e.g. the collection path. */
  name: string;
  lw: ListerWatcher;
  sink: ReflectorSink;
  /** LIST page size (default 500). */
  pageSize?: number;
  /** The watch `timeoutSeconds` is random in [min, 2·min) seconds; min in milliseconds (default 300 000). */
  minWatchTimeoutMs?: number;
  backoff?: ReconnectBackoffOptions;
  /** Sleep used between retries (tests may shorten it). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

class RestartWatch extends Error {}

export class Reflector {
  readonly name: string;
  readonly #lw: ListerWatcher;
  readonly #sink: ReflectorSink;
  readonly #pageSize: number;
  readonly #minWatchTimeoutMs: number;
  readonly #backoff: ReconnectBackoff;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #customSleep: boolean;
  readonly #log: Logger;
  #resourceVersion = '';
  #needList = true;
  /** False once the server rejected a WatchList request: LIST + WATCH from then on. */
  #watchList: boolean;
  /** The last WatchList ended before its state was complete: LIST once, then try WatchList again. */
  #listOnce = false;
  #watchAbort: AbortController | undefined;

  constructor(opts: ReflectorOptions) {
    this.name = opts.name;
    this.#lw = opts.lw;
    this.#watchList = opts.lw.watchList === true;
    this.#sink = opts.sink;
    this.#pageSize = opts.pageSize ?? 500;
    this.#minWatchTimeoutMs = opts.minWatchTimeoutMs ?? 300_000;
    if (!(Number.isInteger(this.#pageSize) && this.#pageSize >= 0))
      throw new RangeError(`pageSize must be an integer >= 0, got ${this.#pageSize}`);
    if (!(this.#minWatchTimeoutMs >= 1000))
      throw new RangeError(`minWatchTimeoutMs must be >= 1000, got ${this.#minWatchTimeoutMs}`);
    this.#backoff = new ReconnectBackoff(opts.backoff);
    this.#sleep = opts.sleep ?? ((ms, signal) => sleep(ms, undefined, { signal }));
    this.#customSleep = opts.sleep !== undefined;
    this.#log = createLogger('reflector').with({ resource: opts.name });
  }

  /** The resourceVersion of the last list, watch event or bookmark ('' before the first list). */
  get lastSyncResourceVersion(): string {
    return this.#resourceVersion;
  }

  /**
   * For tests: sets the resourceVersion and re-opens the watch from it (e.g. `'1'`, which the server
   * answers with 410 Gone, forcing a relist).
   */
  restartWatchFrom(resourceVersion: string): void {
    this.#resourceVersion = resourceVersion;
    this.#needList = false;
    this.#watchAbort?.abort(new RestartWatch('restart requested'));
  }

  /** Runs until `signal` aborts; never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (this.#needList && this.#watchList && !this.#listOnce) {
        informerListsTotal.inc({ resource: this.name });
        const outcome = await this.#watch(signal, true);
        if (signal.aborted) break;
        if (outcome === 'closed' || outcome === 'restart' || outcome === 'expired' || outcome === 'unsupported')
          continue;
        await this.#pause(this.#backoff.next(), signal, outcome === 'unreachable');
        continue;
      }
      if (this.#needList) {
        try {
          await this.#list(signal);
        } catch (err) {
          if (signal.aborted) break;
          informerWatchErrorsTotal.inc({ resource: this.name, reason: 'list_error' });
          const delay = this.#backoff.next();
          this.#log.warn('list failed; retrying', { err: errorMessage(err), retryInMs: Math.round(delay) });
          await this.#pause(delay, signal, statusCode(err) === undefined);
          continue;
        }
        this.#listOnce = false;
        this.#backoff.reset();
      }
      const outcome = await this.#watch(signal);
      if (signal.aborted) break;
      if (outcome === 'closed' || outcome === 'restart' || outcome === 'expired') continue;
      await this.#pause(this.#backoff.next(), signal, outcome === 'unreachable');
    }
  }

  /**
   * client-go's fallback: LIST + WATCH for this sync; from now on when the server rejected the request
   * (`permanent`), once when the stream ended early.
   */
  #watchListFallback(why: string, permanent: boolean): 'unsupported' {
    if (permanent) this.#watchList = false;
    else this.#listOnce = true;
    this.#log.warn('The watchlist request ended with an error, falling back to the standard LIST/WATCH semantics', {
      err: why,
    });
    return 'unsupported';
  }

  /**
   * Sleeps `ms`; after a failure without an answer from the server, ends early once it answers again; after
   * one the server answered, at most a second while it has just come back.
   */
  async #pause(ms: number, signal: AbortSignal, unreachable: boolean): Promise<void> {
    try {
      if (unreachable && this.#lw.waitForServer && !this.#customSleep) await this.#lw.waitForServer(ms, signal);
      else await this.#sleep(this.#lw.retryDelayMs?.(ms) ?? ms, signal);
    } catch {
      // aborted
    }
  }

  async #list(signal: AbortSignal): Promise<void> {
    informerListsTotal.inc({ resource: this.name });
    let items: unknown[] = [];
    let page: ListPage | undefined;
    let cont: string | undefined;
    let limit: number | undefined = this.#pageSize > 0 ? this.#pageSize : undefined;
    for (;;) {
      try {
        const req = { signal, ...(limit ? { limit } : {}), ...(cont ? { continue: cont } : {}) };
        page = await untilAborted(this.#lw.list(req), signal);
      } catch (err) {
        if (cont !== undefined && isGone(err)) {
          // The continue token expired mid-list: start over with one unpaged list (client-go pager).
          this.#log.info('list continue token expired; listing without paging');
          items = [];
          cont = undefined;
          limit = undefined;
          continue;
        }
        throw err;
      }
      for (const it of page.items) items.push(it);
      cont = page.continue;
      if (!cont) break;
    }
    this.#sink.replace(items, page.resourceVersion, page);
    this.#resourceVersion = page.resourceVersion;
    this.#needList = false;
    this.#log.v(2).info('listed', { items: items.length, resourceVersion: page.resourceVersion });
  }

  /**
   * One watch; returns how it ended. With `initial`, a WatchList: the state arrives first, as ADDED events
   * up to the initial-events-end bookmark, and replaces the store there.
   */
  async #watch(
    signal: AbortSignal,
    initial = false,
  ): Promise<'closed' | 'restart' | 'expired' | 'error' | 'unreachable' | 'unsupported'> {
    // The signal may have aborted while the list was being delivered; a listener added now would never fire.
    if (signal.aborted) return 'closed';
    const ac = new AbortController();
    this.#watchAbort = ac;
    const onAbort = () => ac.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const timeoutSeconds = Math.floor((this.#minWatchTimeoutMs / 1000) * (1 + Math.random()));
    const started = performance.now();
    let events = 0;
    // The initial state of a WatchList, by namespace/name, until its end bookmark.
    let state = initial ? new Map<string, unknown>() : undefined;
    try {
      const stream = this.#lw.watch({
        resourceVersion: initial ? '' : this.#resourceVersion,
        timeoutSeconds,
        signal: ac.signal,
        ...(initial ? { sendInitialEvents: true } : {}),
      });
      for await (const ev of stream) {
        if (ac.signal.aborted) break;
        events++;
        if (state && ev.type !== 'ERROR' && ev.type !== 'BOOKMARK') {
          if (ev.type === 'DELETED') state.delete(objectKey(ev.object));
          else state.set(objectKey(ev.object), ev.object);
          continue;
        }
        switch (ev.type) {
          case 'ERROR': {
            const status = ev.object;
            if (isGone({ body: status, code: status.code }))
              throw Object.assign(new Error(String(status.message)), { code: 410 });
            throw Object.assign(new Error(`watch error: ${String(status.message ?? JSON.stringify(status))}`), {
              body: status,
            });
          }
          case 'BOOKMARK': {
            const meta = ev.object.metadata as
              { resourceVersion?: string; annotations?: Record<string, string> } | undefined;
            const rv = meta?.resourceVersion;
            if (rv) this.#resourceVersion = rv;
            if (state && meta?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
              this.#sink.replace([...state.values()], rv ?? '', {});
              this.#log.v(2).info('initial events streamed', { items: state.size, resourceVersion: rv });
              state = undefined;
              this.#needList = false;
              this.#backoff.reset();
            }
            break;
          }
          case 'ADDED':
          case 'MODIFIED':
          case 'DELETED': {
            this.#sink.event(ev);
            const rv = (ev.object.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
            if (rv) this.#resourceVersion = rv;
            break;
          }
          default:
            this.#log.warn('unknown watch event type', { type: (ev as { type?: unknown }).type });
        }
      }
      if (ac.signal.reason instanceof RestartWatch) return 'restart';
      if (state) return this.#watchListFallback('the stream ended before the initial-events-end bookmark', false);
      if (events === 0 && performance.now() - started < 1000) {
        // client-go: a watch that closes within a second with nothing received is treated as an error.
        informerWatchErrorsTotal.inc({ resource: this.name, reason: 'error' });
        this.#log.warn('watch closed immediately with no events; backing off');
        return 'error';
      }
      this.#backoff.reset();
      return 'closed';
    } catch (err) {
      if (signal.aborted) return 'closed';
      if (ac.signal.reason instanceof RestartWatch) return 'restart';
      if (isGone(err)) {
        informerWatchErrorsTotal.inc({ resource: this.name, reason: 'expired' });
        this.#log.info('watch expired (410); relisting', {
          resourceVersion: this.#resourceVersion,
          err: errorMessage(err),
        });
        this.#needList = true;
        return 'expired';
      }
      const code = statusCode(err);
      if (state && code !== undefined && code >= 400 && code < 500 && code !== 429)
        return this.#watchListFallback(errorMessage(err), true);
      const reason = err instanceof WatchInactivityError ? 'inactivity' : 'error';
      informerWatchErrorsTotal.inc({ resource: this.name, reason });
      this.#log.warn('watch ended with an error; reconnecting', { reason, err: errorMessage(err) });
      if (events > 0) this.#backoff.reset();
      return statusCode(err) === undefined ? 'unreachable' : 'error';
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#watchAbort = undefined;
      ac.abort();
    }
  }
}

/** `namespace/name` of a watched object. */
function objectKey(obj: Record<string, unknown>): string {
  const m = (obj.metadata ?? {}) as { namespace?: string; name?: string };
  return m.namespace ? `${m.namespace}/${m.name}` : (m.name ?? '');
}

/**
 * The list and watch calls an informer makes (client-go `cache.ListerWatcher`), and their REST
 * implementation: a raw paged LIST and a raw WATCH stream read line by line, both through the
 * shared client transport so they reuse connections and count in the QPS limiter and metrics.
 */
import { bodyChunks } from '../client/body-chunks.js';
import { throwForStatus } from '../client/status-error.js';
import { type ClientFactory, clientFactoryTransport } from '../client/factory.js';
import { transportAnswers } from '../client/transport.js';
import { omitArrayMembers } from './omit-json-members.js';

/** One page of a LIST. */
export interface ListPage {
  /** Items as received (list items have no apiVersion/kind). */
  items: unknown[];
  /** The list's resourceVersion. */
  resourceVersion: string;
  /** Continue token when more pages exist. */
  continue?: string;
  /** The list's `apiVersion` (e.g. `v1`) and `kind` (e.g. `NodeList`), when known. */
  apiVersion?: string;
  /** The list's `kind`, e.g. `NodeList`, when known. */
  kind?: string;
}

/** Parameters of one LIST call. */
export interface ListRequest {
  /** Page size; absent for an unpaged list. */
  limit?: number;
  /** The continue token of the previous page. */
  continue?: string;
  /** Absent for a consistent (quorum) read. */
  resourceVersion?: string;
  /** Aborts the request. */
  signal: AbortSignal;
}

/** Parameters of one WATCH call. */
export interface WatchRequest {
  /** Where the watch starts: the resourceVersion of the last list or event. */
  resourceVersion: string;
  /** Server-side duration of the watch, in seconds. */
  timeoutSeconds: number;
  /** Aborts the watch. */
  signal: AbortSignal;
  /**
   * A WatchList request (client-go `watchList`): `sendInitialEvents=true` with
   * `resourceVersionMatch=NotOlderThan`; the server first sends the current state as ADDED events, then a
   * BOOKMARK annotated {@link INITIAL_EVENTS_END_ANNOTATION}.
   */
  sendInitialEvents?: boolean;
}

/** The annotation of the BOOKMARK that ends a WatchList's initial events (`metav1.InitialEventsAnnotationKey`). */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** One watch event; `object` is the server's JSON (a `Status` for `ERROR`). */
export interface WatchEvent {
  /** The event type, as the API server sends it. */
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  /** The object, or a `Status` for `ERROR`. */
  object: Record<string, unknown>;
}

/** What an informer needs from the API. Errors are thrown (`ApiException` for HTTP errors). */
export interface ListerWatcher {
  /**
   * True when every object is already plain JSON as the server sent it (no `Date`s or class
   * instances), so the informer need not copy it before caching. Default false.
   */
  readonly plainJson?: boolean;
  /**
   * Lists one page. @throws client-node's `ApiException` for an HTTP error (410 Gone for an expired resourceVersion).
   */
  list(req: ListRequest): Promise<ListPage>;
  /**
   * Optional: waits `ms`, or less when the API server answers again after requests got no response (the
   * transport's `ServerAnswers`). Reflectors use it to back off after losing the server.
   */
  waitForServer?(ms: number, signal: AbortSignal): Promise<void>;
  /**
   * Optional: the delay before retrying after a failure the server answered (403, 5xx, …), given the backoff
   * `ms`: shorter right after the server came back from an outage, while it finishes starting (the
   * transport's `ServerAnswers.retryDelayMs`). Both in milliseconds.
   */
  retryDelayMs?(ms: number): number;
  /** Events until the server closes the stream (normal end) or an error is thrown. */
  watch(req: WatchRequest): AsyncIterable<WatchEvent>;
  /** True when `watch` supports `sendInitialEvents` (reflectors then stream the initial state instead of a LIST). */
  readonly watchList?: boolean;
}

/** Thrown when a watch delivered no data for longer than its inactivity timeout. */
export class WatchInactivityError extends Error {
  constructor(ms: number) {
    super(`watch received nothing for ${ms} ms`);
    this.name = 'WatchInactivityError';
  }
}

/** Options of {@link restListerWatcher}. */
export interface RestListerWatcherOptions {
  /** Collection path, e.g. `/api/v1/nodes` or `/api/v1/namespaces/x/services`. */
  path: string;
  /** Only objects matching this label selector. */
  labelSelector?: string;
  /** Only objects matching this field selector. */
  fieldSelector?: string;
  /** Client name for the user agent (default `shared-informers`). */
  clientName?: string;
  /** A watch with no bytes for this long is abandoned (milliseconds, default 120 000). */
  inactivityTimeoutMs?: number;
}

/** A ListerWatcher over raw REST calls through the client factory. */
export function restListerWatcher(clients: ClientFactory, opts: RestListerWatcherOptions): ListerWatcher {
  return restListerWatcherOmitting(clients, opts, []);
}

/**
 * {@link restListerWatcher} whose watch events are parsed without the array members named in `omit`
 * (`omitArrayMembers`): only for an informer whose transform drops those members anyway and whose object
 * schema has no other member of those names (the factory's Node and Service informers with their default
 * transforms).
 */
export function restListerWatcherOmitting(
  clients: ClientFactory,
  opts: RestListerWatcherOptions,
  omit: readonly string[],
): ListerWatcher {
  const name = opts.clientName ?? 'shared-informers';
  const inactivityMs = opts.inactivityTimeoutMs ?? 120_000;
  const selectors = {
    labelSelector: opts.labelSelector || undefined,
    fieldSelector: opts.fieldSelector || undefined,
  };
  return {
    plainJson: true,
    watchList: true,
    async list(req) {
      const resp = await clients.request(name, opts.path, {
        query: {
          ...selectors,
          limit: req.limit,
          continue: req.continue,
          resourceVersion: req.resourceVersion,
        },
        signal: req.signal,
      });
      await throwForStatus(resp, `list ${opts.path}`);
      const body = (await resp.json()) as {
        apiVersion?: string;
        kind?: string;
        metadata?: { resourceVersion?: string; continue?: string };
        items?: unknown[];
      };
      return {
        items: body.items ?? [],
        resourceVersion: body.metadata?.resourceVersion ?? '',
        ...(body.metadata?.continue ? { continue: body.metadata.continue } : {}),
        ...(body.apiVersion ? { apiVersion: body.apiVersion } : {}),
        ...(body.kind ? { kind: body.kind } : {}),
      };
    },
    watch(req) {
      return watchStream(clients, name, opts.path, selectors, req, inactivityMs, omit);
    },
    waitForServer(ms, signal) {
      return transportAnswers(clientFactoryTransport(clients)).waitForServer(ms, signal);
    },
    retryDelayMs(ms) {
      return transportAnswers(clientFactoryTransport(clients)).retryDelayMs(ms);
    },
  };
}

async function* watchStream(
  clients: ClientFactory,
  name: string,
  path: string,
  selectors: { labelSelector: string | undefined; fieldSelector: string | undefined },
  req: WatchRequest,
  inactivityMs: number,
  omit: readonly string[],
): AsyncGenerator<WatchEvent> {
  req.signal.throwIfAborted();
  const ac = new AbortController();
  const onAbort = () => ac.abort(req.signal.reason);
  req.signal.addEventListener('abort', onAbort, { once: true });
  let inactive = false;
  // One timer for the whole watch, pushed back on every chunk (`refresh`, not a new timer per chunk).
  const timer = setTimeout(() => {
    inactive = true;
    ac.abort(new WatchInactivityError(inactivityMs));
  }, inactivityMs);
  timer.unref();
  try {
    const resp = await clients.request(name, path, {
      query: {
        ...selectors,
        watch: true,
        ...(req.sendInitialEvents ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' } : {}),
        resourceVersion: req.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: req.timeoutSeconds,
      },
      signal: ac.signal,
      watch: true,
    });
    await throwForStatus(resp, `watch ${path}`);
    // One JSON document per line; a Node stream decoded by its StringDecoder (no web streams or TextDecoder).
    resp.body.setEncoding('utf8');
    let buf = '';
    for await (const chunk of bodyChunks(resp.body) as AsyncIterable<string>) {
      timer.refresh();
      buf += chunk;
      let from = 0;
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const line = buf.slice(from, nl).trim();
        from = nl + 1;
        nl = buf.indexOf('\n', from);
        if (line === '') continue;
        yield parseEvent(line, omit);
      }
      buf = buf.slice(from);
    }
    const rest = buf.trim();
    if (rest !== '') yield parseEvent(rest, omit);
  } catch (err) {
    if (inactive) throw new WatchInactivityError(inactivityMs);
    throw err;
  } finally {
    clearTimeout(timer);
    req.signal.removeEventListener('abort', onAbort);
    ac.abort();
  }
}

/** One event line parsed, without the `omit` members; the whole line when the shortened text does not parse. */
function parseEvent(line: string, omit: readonly string[]): WatchEvent {
  if (omit.length === 0) return JSON.parse(line) as WatchEvent;
  const shorter = omitArrayMembers(line, omit);
  if (shorter !== line) {
    try {
      return JSON.parse(shorter) as WatchEvent;
    } catch {
      // Not the compact JSON the omission expects: the transform drops the members from the whole event.
    }
  }
  return JSON.parse(line) as WatchEvent;
}

/**
 * A shared list-all snapshot of the account's servers with a maximum age (Hetzner's server cache,
 * Linode's instance cache): one paged list serves every Node lookup until it is `maxAgeMs` old, so
 * node syncs do not cost one API call per Node.
 *
 * The snapshot only answers "found". A miss is never taken as "does not exist": callers confirm it
 * with a direct call, because a stale cache is one of the ways real CCMs deleted live Nodes.
 */
import { untilAborted } from '@ccm-kit/runtime/wait';
import type { MockCloudClient, Server } from '../client/index.js';

/** One listing of all servers. */
export interface ServerSnapshot {
  byID: ReadonlyMap<string, Server>;
  /** Servers by name; more than one entry means the name is ambiguous. */
  byName: ReadonlyMap<string, readonly Server[]>;
  /** Epoch ms of the listing. */
  fetchedAt: number;
}

/** Options of {@link ServerCache}. */
export interface ServerCacheOptions {
  /** How old a snapshot may be, in ms; 0 lists again on every call. */
  maxAgeMs: number;
  /** The clock, in epoch ms; default `Date.now`. */
  now?: () => number;
}

/** The server snapshot cache. Concurrent refreshes share one list call. */
export class ServerCache {
  readonly #client: MockCloudClient;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #snapshot: ServerSnapshot | undefined;
  #inflight: Promise<ServerSnapshot> | undefined;

  constructor(client: MockCloudClient, options: ServerCacheOptions) {
    this.#client = client;
    this.#maxAgeMs = options.maxAgeMs;
    this.#now = options.now ?? Date.now;
  }

  /**
   * A snapshot no older than `maxAgeMs` (listing again when needed).
   * @param force - list again even when the snapshot is fresh.
   * @throws the client's errors; a failed refresh leaves the previous snapshot in place.
   */
  async get(signal?: AbortSignal, force = false): Promise<ServerSnapshot> {
    const snap = this.#snapshot;
    if (!force && snap && this.#now() - snap.fetchedAt < this.#maxAgeMs) return snap;
    signal?.throwIfAborted();
    if (!this.#inflight) {
      this.#inflight = this.#refresh().finally(() => {
        this.#inflight = undefined;
      });
    }
    return untilAborted(this.#inflight, signal);
  }

  /** Drops the snapshot; the next {@link ServerCache.get} lists again. */
  invalidate(): void {
    this.#snapshot = undefined;
  }

  async #refresh(): Promise<ServerSnapshot> {
    const servers = await this.#client.listServers();
    const byID = new Map<string, Server>();
    const byName = new Map<string, Server[]>();
    for (const s of servers) {
      byID.set(s.id, s);
      const same = byName.get(s.name);
      if (same) same.push(s);
      else byName.set(s.name, [s]);
    }
    const snap: ServerSnapshot = { byID, byName, fetchedAt: this.#now() };
    this.#snapshot = snap;
    return snap;
  }
}

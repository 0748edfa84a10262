/**
 * One pass's batch read of `InstancesV2.listInstanceStates` (no upstream counterpart; upstream asks once per
 * Node): the pages are read until the last one, until every Node the pass needs is found, or until a page
 * fails. Only what was found is used; every other Node is asked about per Node, so absence from a listing,
 * complete or not, never deletes or taints anything (docs/decisions/0103-batch-instance-reads.md).
 */
import type { CloudProvider, InstanceState, InstanceStatePage, InstancesV2 } from '@ccm-kit/cloud-provider';
import type { Logger } from '@ccm-kit/runtime';

/** Upper bound of pages one listing reads (a guard against a provider whose tokens never end). */
export const MAX_LISTING_PAGES = 10_000;

/** How a listing ended. */
export type ListingEnd = 'last-page' | 'all-found' | 'failed';

/** What one listing found. */
export interface InstanceListing {
  /** The listed instances the pass asked for, by providerID (the first listing of a providerID wins). */
  readonly found: ReadonlyMap<string, InstanceState>;
  /** Pages read successfully. */
  readonly pages: number;
  /** `last-page`: every page was read; `all-found`: stopped early, every wanted Node found; `failed`: a page failed. */
  readonly end: ListingEnd;
  /** Why the listing failed (`end === 'failed'`). */
  readonly error?: unknown;
  /** Listed items ignored because they are not `{ providerID: non-empty string, metadata: object, shutdown: boolean }`. */
  readonly malformed: number;
}

/** An InstancesV2 facet with the batch read. */
export type BatchInstances = InstancesV2 & Required<Pick<InstancesV2, 'listInstanceStates'>>;

/** The provider's InstancesV2 facet when it offers `listInstanceStates`, else `undefined` (upstream behaviour). */
export function batchInstances(cloud: CloudProvider): BatchInstances | undefined {
  const v2 = cloud.instancesV2?.();
  return typeof v2?.listInstanceStates === 'function' ? (v2 as BatchInstances) : undefined;
}

function isInstanceState(item: unknown): item is InstanceState {
  if (typeof item !== 'object' || item === null) return false;
  const { providerID, metadata, shutdown } = item as Partial<InstanceState>;
  return (
    typeof providerID === 'string' &&
    providerID !== '' &&
    typeof metadata === 'object' &&
    metadata !== null &&
    typeof shutdown === 'boolean'
  );
}

/** A short description of a provider's answer for an error message (at most 200 characters, never throws). */
function shown(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    const text = JSON.stringify(value);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * The page's items and next token.
 * @throws TypeError naming `listInstanceStates` when the answer is not an {@link InstanceStatePage}.
 */
function checkedPage(page: unknown): { instances: unknown[]; next: string | undefined } {
  const p = page as Partial<InstanceStatePage> | null | undefined;
  const next = p?.nextPageToken;
  if (typeof p !== 'object' || p === null || !Array.isArray(p.instances)) {
    throw new TypeError(
      `listInstanceStates returned ${shown(page)}, not a page { instances: InstanceState[], nextPageToken?: string }`,
    );
  }
  if (next !== undefined && next !== null && typeof next !== 'string') {
    throw new TypeError(`listInstanceStates returned nextPageToken ${String(next)}, not a string`);
  }
  return { instances: p.instances, next: next || undefined };
}

/**
 * Reads `instances.listInstanceStates` page by page and keeps the instances whose providerID is in `wanted`.
 * Never throws: a failing page (the provider's error, a malformed page, a repeated page token, more than
 * {@link MAX_LISTING_PAGES} pages, an abort) ends the listing with `end: 'failed'` and what was found so far.
 */
export async function readInstanceListing(
  instances: BatchInstances,
  wanted: ReadonlySet<string>,
  signal?: AbortSignal,
): Promise<InstanceListing> {
  const found = new Map<string, InstanceState>();
  const tokens = new Set<string>();
  let pages = 0;
  let malformed = 0;
  let token: string | undefined;
  try {
    for (;;) {
      signal?.throwIfAborted();
      if (pages >= MAX_LISTING_PAGES) {
        throw new Error(`listInstanceStates: more than ${MAX_LISTING_PAGES} pages; stopped`);
      }
      const { instances: items, next } = checkedPage(await instances.listInstanceStates(token, signal));
      pages++;
      for (const item of items) {
        if (!isInstanceState(item)) {
          malformed++;
          continue;
        }
        if (wanted.has(item.providerID) && !found.has(item.providerID)) found.set(item.providerID, item);
      }
      if (next === undefined) return { found, pages, end: 'last-page', malformed };
      if (found.size === wanted.size) return { found, pages, end: 'all-found', malformed };
      if (tokens.has(next)) {
        throw new Error(`listInstanceStates returned the page token ${JSON.stringify(next)} a second time`);
      }
      tokens.add(next);
      token = next;
    }
  } catch (error) {
    return { found, pages, end: 'failed', error, malformed };
  }
}

/**
 * Whether one listing is expected to cost fewer cloud calls than asking per Node: `wanted` Nodes at
 * `callsPerNode` calls each against the pages the last successful listing took (unknown before the first
 * listing: then it lists). On a tie the per-Node calls win, as upstream.
 */
export function listingIsCheaper(wanted: number, callsPerNode: number, lastPages: number | undefined): boolean {
  if (wanted === 0) return false;
  return lastPages === undefined || wanted * callsPerNode > lastPages;
}

/** A short description of a listing for logs. */
export function describeListing(listing: InstanceListing, wanted: number): Record<string, unknown> {
  return {
    pages: listing.pages,
    end: listing.end,
    found: listing.found.size,
    perNode: wanted - listing.found.size,
    ...(listing.malformed > 0 ? { malformed: listing.malformed } : {}),
  };
}

/**
 * The batch reads of one controller's passes: decides per pass whether to list ({@link listingIsCheaper}, from
 * the pages the last successful listing took), lists, and logs the outcome. A failed listing is logged as an
 * error; its pages are not remembered.
 */
export class PassInstanceListing {
  readonly #callsPerNode: number;
  readonly #log: Logger;
  #lastPages: number | undefined;

  /** @param callsPerNode - cloud calls the pass makes per Node without the listing (1 status, 2 lifecycle). */
  constructor(callsPerNode: number, log: Logger) {
    this.#callsPerNode = callsPerNode;
    this.#log = log;
  }

  /**
   * The instances found for the `wanted` providerIDs, or `undefined` when the pass asks per Node: the provider
   * has no `listInstanceStates`, or per-Node calls are expected to be cheaper. Never throws.
   */
  async read(
    cloud: CloudProvider,
    wanted: ReadonlySet<string>,
    signal?: AbortSignal,
  ): Promise<ReadonlyMap<string, InstanceState> | undefined> {
    const instances = batchInstances(cloud);
    if (!instances || !listingIsCheaper(wanted.size, this.#callsPerNode, this.#lastPages)) return undefined;
    const listing = await readInstanceListing(instances, wanted, signal);
    const details = describeListing(listing, wanted.size);
    if (listing.end !== 'failed') {
      this.#lastPages = listing.pages;
      this.#log.v(4).info('Listed instances', details);
    } else if (!signal?.aborted) {
      this.#log.error(
        listing.error,
        'Listing instances failed; asking the cloud per Node for the Nodes not found',
        details,
      );
    }
    if (listing.malformed > 0) {
      this.#log.warn('listInstanceStates returned malformed items; they were ignored', details);
    }
    return listing.found;
  }
}

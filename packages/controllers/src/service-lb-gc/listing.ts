/**
 * Reads every page of `LoadBalancer.listLoadBalancers`. A listing that fails on any page, or whose page tokens
 * repeat, fails as a whole: the collector then decides nothing on that pass and keeps what it saw before.
 */
import type { ListedLoadBalancer, LoadBalancer } from '@ccm-kit/cloud-provider';

/** At most this many pages per listing; more means the provider's tokens loop. */
export const MAX_LISTING_PAGES = 10_000;

/** Why a listing is not complete; the collector logs it and skips the pass. */
export class IncompleteListingError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'IncompleteListingError';
  }
}

/**
 * Every entry of every page, in the provider's order.
 * @throws IncompleteListingError when a page fails (the provider's error as `cause`), a page token repeats, or
 *   there are more than {@link MAX_LISTING_PAGES} pages; the signal's reason when it aborts.
 */
export async function listAllLoadBalancers(
  lb: Required<Pick<LoadBalancer, 'listLoadBalancers'>>,
  clusterName: string,
  signal: AbortSignal,
): Promise<ListedLoadBalancer[]> {
  const out: ListedLoadBalancer[] = [];
  const seen = new Set<string>();
  let pageToken: string | undefined;
  for (let page = 1; ; page++) {
    if (page > MAX_LISTING_PAGES) {
      throw new IncompleteListingError(`listing has more than ${MAX_LISTING_PAGES} pages`);
    }
    let result: Awaited<ReturnType<typeof lb.listLoadBalancers>>;
    try {
      result = await lb.listLoadBalancers(clusterName, pageToken === undefined ? { signal } : { signal, pageToken });
    } catch (err) {
      signal.throwIfAborted();
      throw new IncompleteListingError(
        `page ${page} of the listing failed: ${(err as Error)?.message ?? String(err)}`,
        {
          cause: err,
        },
      );
    }
    if (!Array.isArray(result?.loadBalancers)) {
      throw new IncompleteListingError(`page ${page} of the listing has no loadBalancers array`);
    }
    out.push(...result.loadBalancers);
    const next = result.nextPageToken;
    if (next === undefined || next === '') return out;
    if (seen.has(next)) throw new IncompleteListingError(`page token ${JSON.stringify(next)} was returned twice`);
    seen.add(next);
    pageToken = next;
  }
}

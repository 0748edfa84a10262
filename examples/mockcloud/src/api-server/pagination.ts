/**
 * Page/per_page pagination of list answers, with `meta.pagination` and an RFC 8288 `Link` header.
 */
import type { WirePagination } from '../wire.js';
import { invalidInput } from './problem.js';

/** Default page size. */
export const DEFAULT_PER_PAGE = 25;
/** Largest page size the API accepts. */
export const MAX_PER_PAGE = 50;

/** One page of items. */
export interface Page<T> {
  items: T[];
  pagination: WirePagination;
  /** The `Link` header value (`next`, `prev`, `last`), or `undefined` for a single page. */
  link: string | undefined;
}

function positiveInt(query: URLSearchParams, name: string, fallback: number, max: number, problems: string[]): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    problems.push(`${name} must be an integer in 1-${max}`);
    return fallback;
  }
  return n;
}

/**
 * Cuts `items` to the page asked for by `page` (default 1) and `per_page` (default 25, at most 50).
 * A page past the end is empty. `url` is the request URL, used to build the `Link` header.
 * @throws ApiProblem 400 `invalid_input` for a bad `page` or `per_page`.
 */
export function paginate<T>(items: T[], url: URL): Page<T> {
  const problems: string[] = [];
  const page = positiveInt(url.searchParams, 'page', 1, Number.MAX_SAFE_INTEGER, problems);
  const perPage = positiveInt(url.searchParams, 'per_page', DEFAULT_PER_PAGE, MAX_PER_PAGE, problems);
  if (problems.length > 0) throw invalidInput(problems);
  const lastPage = Math.max(1, Math.ceil(items.length / perPage));
  const pagination: WirePagination = {
    page,
    per_page: perPage,
    previous_page: page > 1 ? Math.min(page - 1, lastPage) : null,
    next_page: page < lastPage ? page + 1 : null,
    last_page: lastPage,
    total_entries: items.length,
  };
  const at = (p: number) => {
    const u = new URL(url);
    u.searchParams.set('page', String(p));
    u.searchParams.set('per_page', String(perPage));
    return `<${u.pathname}${u.search}>`;
  };
  const links: string[] = [];
  if (pagination.next_page !== null) links.push(`${at(pagination.next_page)}; rel="next"`);
  if (pagination.previous_page !== null) links.push(`${at(pagination.previous_page)}; rel="prev"`);
  if (lastPage > 1) links.push(`${at(lastPage)}; rel="last"`);
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    pagination,
    link: links.length > 0 ? links.join(', ') : undefined,
  };
}

/**
 * Cloud resource IDs are checked before they go into a URL path: `.` or `..` would be normalized away by URL
 * parsing (`/load_balancers/.` becomes the list endpoint) and `/` or `?` would change the request.
 */

/**
 * A well-formed mockcloud ID: a letter or digit, then letters, digits, `-`, `_` or `.` (at most 128 characters);
 * so never `.`, `..`, empty, or anything with `/`, `?`, `#` or `%`.
 */
export const MOCKCLOUD_ID_PATTERN = /^[A-Za-z0-9][-A-Za-z0-9_.]{0,127}$/;

/** The ID is not a mockcloud ID; thrown before any request is sent. */
export class MalformedIDError extends Error {
  constructor(
    readonly kind: string,
    readonly id: string,
  ) {
    super(`mockcloud: ${JSON.stringify(id)} is not a valid ${kind} ID (expected ${String(MOCKCLOUD_ID_PATTERN)})`);
    this.name = 'MalformedIDError';
  }
}

/** True when `id` is a well-formed mockcloud ID. */
export function isValidID(id: string): boolean {
  return MOCKCLOUD_ID_PATTERN.test(id);
}

/**
 * The URL path segment of `id`.
 * @throws MalformedIDError when `id` is not a well-formed mockcloud ID.
 */
export function idSegment(kind: string, id: string): string {
  if (!isValidID(id)) throw new MalformedIDError(kind, id);
  return encodeURIComponent(id);
}

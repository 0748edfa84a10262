/**
 * `Retry-After` header parsing (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
 */

/**
 * The delay a `Retry-After` value asks for, in ms (≥ 0), or `undefined` when absent or unparsable.
 * @param now - the current time in epoch ms, for HTTP-date values.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

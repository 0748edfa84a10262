/**
 * How the cloud-call guard sorts errors: a class per failure kind (a metric label, and the retry decision),
 * and the errors it throws itself (a timed-out attempt, a call not sent while the cloud asks to wait). A vendor's client errors are classified by the conventions below
 * unless the guard is given its own `classify`.
 */

/**
 * The class of a failed cloud call:
 * - `throttled` (HTTP 429), `server` (5xx but 501), `timeout` (the guard's per-call timeout), `network` (no
 *   answer: refused, reset, DNS): retried;
 * - `auth` (401, 403), `not_found` (404), `client` (other 4xx, 501), `canceled` (the caller's signal aborted),
 *   `other`: not retried.
 */
export type CloudErrorClass =
  'throttled' | 'server' | 'timeout' | 'network' | 'auth' | 'not_found' | 'client' | 'canceled' | 'other';

/** The classes the guard retries. */
export const RETRYABLE_CLASSES: ReadonlySet<CloudErrorClass> = new Set(['throttled', 'server', 'timeout', 'network']);

/** An attempt got no answer within the guard's per-call timeout. */
export class CloudCallTimeoutError extends Error {
  constructor(
    /** The operation the guard was given, for example `ensureLoadBalancer`. */
    readonly operation: string,
    /** The timeout, in ms. */
    readonly timeoutMs: number,
  ) {
    super(`${operation}: no answer within ${timeoutMs} ms`);
    this.name = 'CloudCallTimeoutError';
  }
}

/**
 * The call was not sent because the cloud asked to wait longer than `maxRetryAfterMs`. Has `status` 429 and
 * `retryAfterMs`, so it classifies as `throttled`; a provider can turn it into a `RetryError`.
 */
export class CloudCallThrottledError extends Error {
  /** Always 429, so that `classifyCloudError` reports `throttled`. */
  readonly status = 429;
  constructor(
    /** The operation the guard was given. */
    readonly operation: string,
    /** How long the cloud still asks to wait, in ms. */
    readonly retryAfterMs: number,
  ) {
    super(`${operation}: not sent: the cloud API asked to wait another ${retryAfterMs} ms`);
    this.name = 'CloudCallThrottledError';
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function statusOf(err: object): number | undefined {
  const e = err as { status?: unknown; statusCode?: unknown };
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function codeOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The default classification: an error with a numeric `status` (or `statusCode`) is an HTTP answer;
 * {@link CloudCallTimeoutError} is `timeout`; fetch's `TypeError: fetch failed` and Node socket error codes
 * (`ECONNREFUSED`, `ECONNRESET`, …, also in the `cause` chain) are `network`; an `AbortError` is `canceled`.
 */
export function classifyCloudError(err: unknown): CloudErrorClass {
  if (err instanceof CloudCallTimeoutError) return 'timeout';
  if (err && typeof err === 'object') {
    const status = statusOf(err);
    if (status !== undefined) {
      if (status === 429) return 'throttled';
      if (status === 401 || status === 403) return 'auth';
      if (status === 404) return 'not_found';
      if (status >= 500 && status !== 501) return 'server';
      if (status >= 400) return 'client';
      return 'other';
    }
    if ((err as { name?: unknown }).name === 'AbortError') return 'canceled';
  }
  if (err instanceof TypeError && err.message === 'fetch failed') return 'network';
  const code = codeOf(err);
  if (code !== undefined && NETWORK_CODES.has(code)) return 'network';
  return 'other';
}

/** The `Retry-After` delay an error carries, in ms: its numeric `retryAfterMs` property, if any. */
export function retryAfterOf(err: unknown): number | undefined {
  const ms = err && typeof err === 'object' ? (err as { retryAfterMs?: unknown }).retryAfterMs : undefined;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/**
 * Classifying errors from Kubernetes API calls (`k8s.io/apimachinery/pkg/api/errors`: IsNotFound,
 * IsConflict, IsAlreadyExists, IsGone/IsResourceExpired, IsTooManyRequests).
 *
 * client-node throws `ApiException` whose `code` is the HTTP status and whose `body` is the raw
 * JSON string of a `metav1.Status` (or an object). Watch failures carry `statusCode` or `code`.
 * The helpers look through an error's `cause` chain, accept any thrown value, and never throw.
 */

/** The parts of a `metav1.Status` the helpers read. */
export interface ErrorStatus {
  /** HTTP status code, when known. */
  code?: number;
  /** `Status.reason`, e.g. `NotFound`; '' when absent. */
  reason: string;
  /** `Status.message`; '' when absent. */
  message: string;
}

/** Reasons apimachinery knows; a status with another reason is classified by its code alone. */
const knownReasons = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null;
}

function parseBody(body: unknown): Record<string, unknown> | undefined {
  if (typeof body === 'string') {
    try {
      const v: unknown = JSON.parse(body);
      return isObject(v) ? v : undefined;
    } catch {
      return undefined;
    }
  }
  return isObject(body) ? body : undefined;
}

function httpCode(e: Record<string, unknown>): number | undefined {
  if (typeof e.code === 'number' && e.code >= 100 && e.code < 600) return e.code;
  if (typeof e.statusCode === 'number') return e.statusCode;
  return undefined;
}

/**
 * The status of the first API error in `err`'s cause chain: its HTTP code and the `Status` body's
 * reason and message. `undefined` for errors with neither a code nor a `Status` body (network
 * errors, aborts).
 */
export function errorStatus(err: unknown): ErrorStatus | undefined {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (isObject(e) && !seen.has(e)) {
    seen.add(e);
    const body = parseBody(e.body);
    const code = httpCode(e) ?? (typeof body?.code === 'number' ? body.code : undefined);
    if (code !== undefined || (body && typeof body.reason === 'string')) {
      return {
        ...(code !== undefined ? { code } : {}),
        reason: typeof body?.reason === 'string' ? body.reason : '',
        message: typeof body?.message === 'string' ? body.message : e instanceof Error ? e.message : '',
      };
    }
    e = e.cause;
  }
  return undefined;
}

/** The HTTP status code of a failed API call, or `undefined` (network errors, aborts, other errors). */
export function statusCode(err: unknown): number | undefined {
  return errorStatus(err)?.code;
}

/** True when the reason is `reason`, or when the reason is unknown and the code is `code`. */
function reasonOrCode(err: unknown, reason: string, code: number): boolean {
  const s = errorStatus(err);
  if (!s) return false;
  if (s.reason === reason) return true;
  return !knownReasons.has(s.reason) && s.code === code;
}

/** 404 NotFound. */
export function isNotFound(err: unknown): boolean {
  return reasonOrCode(err, 'NotFound', 404);
}

/** 409 Conflict: an optimistic-concurrency failure (not AlreadyExists, also a 409). */
export function isConflict(err: unknown): boolean {
  return reasonOrCode(err, 'Conflict', 409);
}

/** 409 AlreadyExists: a create of an existing object. Judged by reason only, as apimachinery. */
export function isAlreadyExists(err: unknown): boolean {
  return errorStatus(err)?.reason === 'AlreadyExists';
}

/**
 * 410: the resource version or continue token is too old (reasons `Gone` and `Expired`, or a
 * message saying "too old resource version"). Informers relist on it.
 */
export function isGone(err: unknown): boolean {
  const s = errorStatus(err);
  if (!s) return false;
  if (s.code === 410 || s.reason === 'Gone' || s.reason === 'Expired') return true;
  return /too old resource version/i.test(s.message);
}

/** 429 TooManyRequests. */
export function isTooManyRequests(err: unknown): boolean {
  return reasonOrCode(err, 'TooManyRequests', 429);
}

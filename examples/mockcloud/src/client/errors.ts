/**
 * Errors of the mockcloud client. The provider relies on the split between them: only
 * {@link isNotFound} means "does not exist"; auth errors, 5xx, timeouts and network errors are
 * errors and must never be read as "the instance is gone". Which of them are retried is decided by the
 * guard's classification (`classifyCloudError` from `@ccm-kit/runtime/guard`): 429, 5xx but 501, network errors and
 * timeouts.
 */
import { CloudCallTimeoutError } from '@ccm-kit/runtime/guard';
import { redactURL } from './redact.js';

/** The API answered with an error status. */
export class MockCloudApiError extends Error {
  constructor(
    /** The client operation, for example `get_server`. */
    readonly operation: string,
    /** HTTP status. */
    readonly status: number,
    /** The API's error code (`not_found`, `unauthorized`, `rate_limit_exceeded`, …). */
    readonly code: string,
    message: string,
    /** The `Retry-After` delay the API asked for, in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(`mockcloud ${operation}: HTTP ${status} ${code}: ${message}`);
    this.name = 'MockCloudApiError';
  }
}

/** The request did not get an answer (connection refused or reset, DNS failure). */
export class MockCloudNetworkError extends Error {
  constructor(
    readonly operation: string,
    cause: unknown,
  ) {
    const detail =
      cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause);
    // fetch echoes a URL with credentials in its message: never pass them on.
    super(`mockcloud ${operation}: network error: ${redactURL(detail)}`, { cause });
    this.name = 'MockCloudNetworkError';
  }
}

/** The request took longer than the client's request timeout (a guard timeout, retried as such). */
export class MockCloudTimeoutError extends CloudCallTimeoutError {
  constructor(operation: string, timeoutMs: number) {
    super(operation, timeoutMs);
    this.message = `mockcloud ${operation}: no answer within ${timeoutMs} ms`;
    this.name = 'MockCloudTimeoutError';
  }
}

/** True for a 404 answer only: the resource does not exist. */
export function isNotFound(err: unknown): boolean {
  return err instanceof MockCloudApiError && err.status === 404;
}

/** True for 401 and 403 answers. */
export function isAuthError(err: unknown): boolean {
  return err instanceof MockCloudApiError && (err.status === 401 || err.status === 403);
}

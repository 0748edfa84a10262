/**
 * Conflict retry for read-modify-write helpers.
 * Follows client-go `util/retry.RetryOnConflict` with the backoffs upstream uses (`k8s.io/cloud-provider controllers/node/node_controller.go` `UpdateNodeSpecBackoff`, client-go `retry.DefaultBackoff`): only an HTTP 409
 * Conflict is retried, any other error is thrown at once; factor 0, so each sleep is
 * `durationMs × (1 + jitter × random[0,1))`.
 */

/** Backoff of a conflict retry. Durations in milliseconds. */
export interface ConflictBackoff {
  /** Number of attempts in total (≥ 1). */
  steps: number;
  /** Base sleep between attempts, in milliseconds. */
  durationMs: number;
  /** Random extra fraction of `durationMs` added to each sleep (upstream uses 1.0). */
  jitter: number;
}

/** `updateLabelBackoff`, `updateTaintBackoff`, `updateNetworkConditionBackoff`: 5 × 100 ms, jitter 1. */
export const UPDATE_NODE_BACKOFF: Readonly<ConflictBackoff> = Object.freeze({
  steps: 5,
  durationMs: 100,
  jitter: 1,
});

/** `UpdateNodeSpecBackoff`: 20 × 50 ms, jitter 1. */
export const UPDATE_NODE_SPEC_BACKOFF: Readonly<ConflictBackoff> = Object.freeze({
  steps: 20,
  durationMs: 50,
  jitter: 1,
});

/** Options of {@link retryOnConflict}. */
export interface RetryOnConflictOptions {
  /** The backoff; default {@link UPDATE_NODE_BACKOFF}. */
  backoff?: ConflictBackoff;
  /** Sleeps `ms` milliseconds; tests inject a fake. Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
  /** Random source in [0, 1); default `Math.random`. */
  random?: () => number;
  /** Stops retrying when aborted: the last conflict error is thrown instead of sleeping again. */
  signal?: AbortSignal;
}

/**
 * True when `err`, or an error in its `cause` chain (Go's `errors.As`, as client-go's `IsConflict`), is an HTTP
 * 409 Conflict: client-node's `ApiException` (`code`), an error with `statusCode`/`status` 409, or a Kubernetes
 * `Status` body with `code: 409`. A 409 whose Status reason is `AlreadyExists` is not a conflict.
 */
export function isConflictError(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (
    let e: unknown = err;
    typeof e === 'object' && e !== null && !seen.has(e);
    e = (e as { cause?: unknown }).cause
  ) {
    seen.add(e);
    const x = e as { code?: unknown; statusCode?: unknown; status?: unknown; body?: unknown };
    let body = x.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        body = undefined;
      }
    }
    const status = typeof body === 'object' && body !== null ? (body as { code?: unknown; reason?: unknown }) : {};
    if (status.reason === 'AlreadyExists') return false;
    if (x.code === 409 || x.statusCode === 409 || x.status === 409 || status.code === 409) return true;
  }
  return false;
}

/**
 * Runs `fn(attempt)` (attempt counts from 0) until it resolves, retrying only on
 * {@link isConflictError} up to `backoff.steps` attempts in total.
 * @returns `fn`'s result.
 * @throws the first non-conflict error, or the last conflict error when attempts run out.
 */
export async function retryOnConflict<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOnConflictOptions = {},
): Promise<T> {
  const backoff = options.backoff ?? UPDATE_NODE_BACKOFF;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const steps = Math.max(1, Math.floor(backoff.steps));
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!isConflictError(err) || attempt + 1 >= steps || options.signal?.aborted) throw err;
    }
    await sleep(backoff.durationMs * (1 + backoff.jitter * random()));
  }
}

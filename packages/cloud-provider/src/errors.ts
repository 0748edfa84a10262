/**
 * Sentinel errors of the cloud-provider contract, as classes checked with `instanceof`
 * (or {@link findError} to look through an `Error.cause` chain, like Go's `errors.Is`/`errors.As`).
 *
 * Follows upstream `k8s.io/cloud-provider/cloud.go` (the `Err*` sentinels) and `api/retry_error.go`.
 * Messages are upstream's exact strings.
 */

/** The instance does not exist. Node-lifecycle deletes the Node when a provider says so. Message: `instance not found`. */
export class InstanceNotFoundError extends Error {
  constructor(message = 'instance not found', options?: ErrorOptions) {
    super(message, options);
    this.name = 'InstanceNotFoundError';
  }
}

/** The facet method is not supported; callers degrade gracefully. Message: `unimplemented`. */
export class NotImplementedError extends Error {
  constructor(message = 'unimplemented', options?: ErrorOptions) {
    super(message, options);
    this.name = 'NotImplementedError';
  }
}

/**
 * Another controller owns this load balancer (returned by ensureLoadBalancer/updateLoadBalancer only,
 * never by ensureLoadBalancerDeleted). Message: `implemented by alternate to cloud provider`.
 */
export class ImplementedElsewhereError extends Error {
  constructor(message = 'implemented by alternate to cloud provider', options?: ErrorOptions) {
    super(message, options);
    this.name = 'ImplementedElsewhereError';
  }
}

/** A volume's disk is not found (volume plugins; not used by the controllers). Message: `disk is not found`. */
export class DiskNotFoundError extends Error {
  constructor(message = 'disk is not found', options?: ErrorOptions) {
    super(message, options);
    this.name = 'DiskNotFoundError';
  }
}

/**
 * Asks the service controller to requeue after a fixed delay instead of exponential backoff,
 * for example while a load balancer is still provisioning. Honoured on the ensure path only.
 * Follows upstream `api/retry_error.go` (`NewRetryError(msg, retryAfter)`).
 */
export class RetryError extends Error {
  /** The delay before the next attempt, in **milliseconds** (≥ 0). */
  readonly retryAfterMs: number;

  /**
   * @param message - the error message (returned unchanged, as upstream's `Error()`).
   * @param retryAfterMs - the requeue delay in milliseconds; negative or non-finite values become 0.
   */
  constructor(message: string, retryAfterMs: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RetryError';
    this.retryAfterMs = Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? retryAfterMs : 0;
  }

  /** The requeue delay in milliseconds (upstream's `RetryAfter()`). */
  retryAfter(): number {
    return this.retryAfterMs;
  }
}

/**
 * Finds the first error of class `type` in `err` or its `cause` chain (Go's `errors.As`).
 * Also looks inside `AggregateError.errors`. Returns `undefined` when there is none.
 * Cycles in the chain are tolerated.
 */
export function findError<T extends Error>(err: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  const seen = new Set<unknown>();
  const stack: unknown[] = [err];
  while (stack.length > 0) {
    const e = stack.pop();
    if (e === undefined || e === null || seen.has(e)) continue;
    seen.add(e);
    if (e instanceof type) return e;
    if (e instanceof AggregateError) stack.push(...e.errors);
    if (typeof e === 'object' && 'cause' in e) stack.push((e as { cause: unknown }).cause);
  }
  return undefined;
}

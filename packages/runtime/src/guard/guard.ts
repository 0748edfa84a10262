/**
 * The cloud-call guard: what every vendor wraps around its cloud API client, built on p-limit and p-retry.
 *
 * - a concurrency limit (p-limit) shared by every call of the guard;
 * - retries with exponential backoff and full jitter (p-retry) for the retryable classes only (429, 5xx but
 *   501, timeouts, network errors; see {@link CloudErrorClass}), never for 4xx or a canceled call;
 * - `Retry-After` honoured for the whole guard: after an error carrying it, no attempt is sent until the delay
 *   has passed (also those queued behind the limit), and a delay longer than `maxRetryAfterMs` fails the call at
 *   once with {@link CloudCallThrottledError} instead of blocking a worker;
 * - a per-attempt timeout through an `AbortSignal` combined with the caller's (the controllers' signals flow in);
 * - optional coalescing of identical reads in flight and a TTL cache for list-style reads (`key`, `cacheTtlMs`);
 * - per-operation Prometheus metrics ({@link guardMetrics});
 * - a {@link CredentialProvider} read before each attempt and re-read once at once after an auth failure, so a
 *   rotated token file takes effect without a restart. Credentials are never logged;
 * - with a process cloud budget (`--cloud-api-qps`), each attempt first takes a token in the caller's lane
 *   (`withCloudLane`), and each throttle answer is reported to it (docs/cloud-call-guard.md);
 * - an undici dispatcher with the lease fence checked at the moment each request is written
 *   ({@link leaseFenceInterceptor}, docs/decisions/0050-lease-fencing.md), handed to each attempt;
 * - with tracing on, a span per call with its attempts (docs/tracing.md).
 */
import pLimit, { type LimitFunction } from 'p-limit';
import pRetry from 'p-retry';
import type { Registry } from 'prom-client';
import { Agent, type Dispatcher } from 'undici';
import { processCloudBudget } from '../budget/process-budget.js';
import { leaseFencedCause, leaseFenceInterceptor } from '../leader-election/fence-interceptor.js';
import { createLogger, type Logger } from '../logging.js';
import { noteCloudAttempt } from '../tracing/span-context.js';
import { traceGuardCall } from '../tracing/spans.js';
import { sleep } from '../wait/sleep.js';
import type { CredentialProvider } from './credentials.js';
import {
  CloudCallThrottledError,
  CloudCallTimeoutError,
  type CloudErrorClass,
  classifyCloudError,
  RETRYABLE_CLASSES,
  retryAfterOf,
} from './errors.js';
import { type GuardMetrics, guardMetrics } from './metrics.js';
import { SharedCalls } from './shared-calls.js';

/** Options of {@link CloudCallGuard}. Durations in ms. */
export interface CloudCallGuardOptions {
  /** The provider name, used in metric names (`cloudprovider_<provider>_api_…`) and logs; letters, digits, `_`. */
  provider: string;
  /** Attempts in flight at once; default 8. */
  concurrency?: number;
  /** Retries after the first attempt; default 5 (0 disables retrying). */
  retries?: number;
  /** First backoff delay in ms (doubled each retry, randomized ×1–2); default 250. */
  minDelayMs?: number;
  /** Largest backoff delay in ms; default 10000. */
  maxDelayMs?: number;
  /** Longest `Retry-After` the guard waits for, in ms; default 60000. A longer one fails the call at once. */
  maxRetryAfterMs?: number;
  /** Timeout of each attempt, in ms; default 15000 (Hetzner's value). */
  timeoutMs?: number;
  /** The credential given to each attempt; re-read once after an `auth` failure. */
  credentials?: CredentialProvider;
  /** Sorts errors into classes (retry decision and metric label); default {@link classifyCloudError}. */
  classify?: (err: unknown) => CloudErrorClass;
  /** The `Retry-After` delay an error carries, in ms; default its `retryAfterMs` property. */
  retryAfterMs?: (err: unknown) => number | undefined;
  /** Where the metrics register; default `metricsRegistry` (the manager's /metrics). */
  registry?: Registry;
  /** Where retries and throttles are logged (default logger `cloud-call-guard`). */
  logger?: Logger;
  /** The clock, in epoch ms (Retry-After deadlines and the cache); default `Date.now`. */
  now?: () => number;
  /**
   * The undici dispatcher (an `Agent`, `Pool`, `ProxyAgent`, ...) the provider's requests go through; the guard
   * hands it out as `ctx.dispatcher` with the lease fence composed onto it. Default: a new undici `Agent`.
   */
  dispatcher?: Dispatcher;
}

/** What one attempt receives. */
export interface CloudCallContext {
  /** Aborts when the caller's signal aborts or the attempt times out: pass it to `fetch`. */
  signal: AbortSignal;
  /** The current credential, when the guard has a {@link CredentialProvider}. */
  credential?: string;
  /** 1 for the first attempt. */
  attempt: number;
  /**
   * The guard's undici dispatcher with the lease fence ({@link CloudCallGuard.dispatcher}): send the attempt's
   * requests through it with undici's `fetch` or `request` (`{ dispatcher, signal }`).
   */
  readonly dispatcher: Dispatcher;
}

/** Options of one {@link CloudCallGuard.call}. */
export interface CloudCallOptions {
  /** The caller's signal: aborting it stops waiting, retrying and the attempt in flight. */
  signal?: AbortSignal;
  /**
   * Identifies a read (for example `list_servers?label=x`): identical keyed calls in flight share one call.
   * Only for reads; the shared call runs without any one caller's signal (bounded by the timeout).
   */
  key?: string;
  /** With `key`: reuse a successful answer for this many ms (default 0: coalescing only). */
  cacheTtlMs?: number;
  /** Overrides the guard's retries for this call (for example 0 for a create that must not be repeated). */
  retries?: number;
}

function positiveInteger(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new Error(`guard: ${name} must be an integer >= ${min}`);
  return value;
}

/** Rejects as soon as `combined` aborts, even if the attempt ignores its signal (the caller sorts out why). */
function abortRejection(combined: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    combined.addEventListener('abort', () => reject(combined.reason as Error), { once: true });
  });
}

/** The guard. One per cloud client; safe to share between controllers. */
export class CloudCallGuard {
  readonly #retries: number;
  readonly #minDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #timeoutMs: number;
  readonly #limit: LimitFunction;
  readonly #credentials: CredentialProvider | undefined;
  readonly #classify: (err: unknown) => CloudErrorClass;
  readonly #retryAfter: (err: unknown) => number | undefined;
  readonly #metrics: GuardMetrics;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #shared: SharedCalls;
  /** Epoch ms before which no attempt is sent (set by `Retry-After`). */
  #blockedUntil = 0;
  #base: Dispatcher | undefined;
  #fencedDispatcher: Dispatcher | undefined;

  /** @throws Error naming the option when a number is out of range or `provider` is not a metric name part. */
  constructor(options: CloudCallGuardOptions) {
    this.#retries = positiveInteger('retries', options.retries ?? 5, 0);
    this.#minDelayMs = positiveInteger('minDelayMs', options.minDelayMs ?? 250, 0);
    this.#maxDelayMs = positiveInteger('maxDelayMs', options.maxDelayMs ?? 10_000, this.#minDelayMs);
    this.#maxRetryAfterMs = positiveInteger('maxRetryAfterMs', options.maxRetryAfterMs ?? 60_000, 0);
    this.#timeoutMs = positiveInteger('timeoutMs', options.timeoutMs ?? 15_000, 1);
    this.#limit = pLimit(positiveInteger('concurrency', options.concurrency ?? 8, 1));
    this.#credentials = options.credentials;
    this.#classify = options.classify ?? classifyCloudError;
    this.#retryAfter = options.retryAfterMs ?? retryAfterOf;
    this.#metrics = guardMetrics(options.provider, options.registry);
    this.#log = options.logger ?? createLogger(`${options.provider}-api`);
    this.#now = options.now ?? Date.now;
    this.#shared = new SharedCalls(this.#now);
    this.#base = options.dispatcher;
  }

  /**
   * The undici dispatcher for the provider's requests (the `dispatcher` option, or an `Agent` made on first use)
   * with {@link leaseFenceInterceptor} composed onto it: with `--leader-elect`, a request is refused with
   * `LeaseFencedError` when, at the moment it would be written to its connection, this replica cannot prove it
   * holds the lease — also one that waited for a connection or was queued when the process was paused. Use it
   * with undici's `fetch`/`request` (Node's global `fetch` bundles another undici and cannot take it). The
   * guard does not retry a refused attempt and rethrows the `LeaseFencedError` itself (not fetch's wrapper).
   */
  get dispatcher(): Dispatcher {
    this.#fencedDispatcher ??= (this.#base ??= new Agent()).compose(leaseFenceInterceptor());
    return this.#fencedDispatcher;
  }

  /**
   * Runs `fn` under the guard.
   * @param operation - the metric `request` label, for example `list_servers`.
   * @returns what `fn` resolves with.
   * @throws the last attempt's error (the caller's abort reason when its signal aborted, a
   *   {@link CloudCallTimeoutError} for a timed-out last attempt, a {@link CloudCallThrottledError} when the
   *   cloud asked to wait longer than `maxRetryAfterMs`).
   */
  async call<T>(
    operation: string,
    fn: (ctx: CloudCallContext) => Promise<T>,
    options: CloudCallOptions = {},
  ): Promise<T> {
    const { key, signal } = options;
    if (key === undefined) return this.#execute(operation, fn, options.retries, signal);
    signal?.throwIfAborted();
    const cacheKey = `${operation}\u0000${key}`;
    const hit = this.#shared.cached(cacheKey);
    if (hit) {
      this.#metrics.cacheHits.inc({ request: operation });
      return hit.value as T;
    }
    const run = this.#shared.run(
      cacheKey,
      options.cacheTtlMs ?? 0,
      () => this.#execute(operation, fn, options.retries, undefined),
      signal,
    );
    if (run.joined) this.#metrics.cacheHits.inc({ request: operation });
    return run.result;
  }

  /** Drops cached answers: those of `operation` with `key`, or all of them. */
  invalidate(operation?: string, key?: string): void {
    this.#shared.invalidate(operation === undefined ? undefined : `${operation}\u0000${key ?? ''}`);
  }

  async #execute<T>(
    operation: string,
    fn: (ctx: CloudCallContext) => Promise<T>,
    retries: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const end = this.#metrics.duration.startTimer({ request: operation });
    try {
      return await traceGuardCall(operation, () =>
        pRetry((attempt) => this.#attempt(operation, fn, attempt, signal), {
          retries: retries ?? this.#retries,
          minTimeout: this.#minDelayMs,
          maxTimeout: this.#maxDelayMs,
          factor: 2,
          randomize: true,
          signal,
          shouldRetry: ({ error }) => {
            if (!RETRYABLE_CLASSES.has(this.#classify(error))) return false;
            const after = this.#retryAfter(error);
            return after === undefined || after <= this.#maxRetryAfterMs;
          },
          onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
            if (retriesLeft > 0 && RETRYABLE_CLASSES.has(this.#classify(error)))
              this.#log.v(4).info('Cloud call failed; retrying', {
                operation,
                attempt: attemptNumber,
                class: this.#classify(error),
              });
          },
        }),
      );
    } catch (err) {
      this.#metrics.errors.inc({
        request: operation,
        class: signal?.aborted ? 'canceled' : this.#classify(err),
      });
      throw err;
    } finally {
      end();
    }
  }

  /** Waits until no `Retry-After` is pending; throws when the wait is longer than `maxRetryAfterMs`. */
  async #waitForRetryAfter(operation: string, signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const wait = this.#blockedUntil - this.#now();
      if (wait <= 0) return;
      if (wait > this.#maxRetryAfterMs) throw new CloudCallThrottledError(operation, wait);
      if (!(await sleep(wait, signal))) signal?.throwIfAborted();
    }
  }

  async #attempt<T>(
    operation: string,
    fn: (ctx: CloudCallContext) => Promise<T>,
    attempt: number,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    // The process' cloud budget: one token per request sent, taken before a concurrency slot is held.
    const token = processCloudBudget()?.acquireRequest(operation, signal);
    if (token) await token;
    return this.#limit(async () => {
      // Checked inside the slot, right before sending, so attempts queued behind the limit also wait.
      await this.#waitForRetryAfter(operation, signal);
      const credential = await this.#credentials?.credential();
      // Reading the credential may have yielded to an answer that set a new Retry-After: check again.
      await this.#waitForRetryAfter(operation, signal);
      try {
        return await this.#send(operation, fn, attempt, signal, credential);
      } catch (err) {
        // A rotated credential: read it again and retry once at once, outside the backoff.
        if (!this.#credentials || this.#classify(err) !== 'auth') throw err;
        this.#credentials.invalidate();
        const fresh = await this.#credentials.credential();
        if (fresh === credential) throw err;
        this.#log.info('Cloud API rejected the credential; retrying with the new one read from its source', {
          operation,
        });
        return await this.#send(operation, fn, attempt, signal, fresh);
      }
    });
  }

  async #send<T>(
    operation: string,
    fn: (ctx: CloudCallContext) => Promise<T>,
    attempt: number,
    signal: AbortSignal | undefined,
    credential: string | undefined,
  ): Promise<T> {
    signal?.throwIfAborted();
    noteCloudAttempt();
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    // The dispatcher is made on first use: providers that do not send through it never create an Agent.
    const ctx = Object.defineProperty({ signal: combined, attempt }, 'dispatcher', {
      get: () => this.dispatcher,
      enumerable: true,
    }) as CloudCallContext;
    if (credential !== undefined) ctx.credential = credential;
    try {
      const value = await Promise.race([fn(ctx), abortRejection(combined)]);
      this.#metrics.attempts.inc({ request: operation, result: 'ok' });
      return value;
    } catch (caught) {
      // A request refused at the lease fence: not a network error (fetch wraps it in `fetch failed`), not retried.
      let err = leaseFencedCause(caught) ?? caught;
      if (signal?.aborted) err = signal.reason;
      else if (timeout.aborted) err = new CloudCallTimeoutError(operation, this.#timeoutMs);
      this.#metrics.attempts.inc({
        request: operation,
        result: signal?.aborted ? 'canceled' : this.#classify(err),
      });
      const after = this.#retryAfter(err);
      // The guard retries a throttled attempt itself; the budget lowers its rate for every caller.
      if (!signal?.aborted && this.#classify(err) === 'throttled')
        processCloudBudget()?.observeThrottle(operation, err, after);
      if (after !== undefined) this.#blockedUntil = Math.max(this.#blockedUntil, this.#now() + after);
      throw err;
    }
  }
}

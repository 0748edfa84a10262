/**
 * Fault injection for {@link FakeCloud}: per-method latency, errors and throttling (beyond upstream's
 * fake, which only has one shared `Err` and one `RequestDelay`).
 *
 * Policies are keyed by method. A policy for a named method wins over one installed for `'*'`.
 * A policy installed once for several methods (a list or `'*'`) shares its state between them:
 * "every 3rd call" counts the calls of all those methods together, and a throttle is one bucket.
 */

import { TokenBucket, WHOLE_TOKEN } from '@ccm-kit/runtime/internal';
import { InjectedError, ThrottledError } from './errors.js';
import { type FakeCloudMethod, type MethodSelector, resolveSelector } from './methods.js';

/** A latency: a fixed number of milliseconds, or a uniformly random one in `[minMs, maxMs]`. */
export type LatencySpec = number | { readonly minMs: number; readonly maxMs: number };

/** What an {@link ErrorFactory} is told about the failing call. */
export interface ErrorInjectionContext {
  /** The failing method. */
  readonly method: FakeCloudMethod;
  /** 1-based number of the call among those the policy has seen (see {@link ErrorPolicy}). */
  readonly callNumber: number;
  /** What the call is about, as in the call log (`namespace/name`, node name, providerID, …). */
  readonly subject: string;
}

/** Builds the error for one injected failure; called once per failure, so each can be a fresh object. */
export type ErrorFactory = (context: ErrorInjectionContext) => Error;

/**
 * When and how calls fail. With neither `everyNth` nor `probability` every call fails.
 * Calls are counted from the moment the policy is installed; throttled calls are not counted.
 */
export interface ErrorPolicy {
  /** Fail the Nth, 2Nth, 3Nth, … call; a positive integer. */
  readonly everyNth?: number;
  /** Fail each call with this probability, in `[0, 1]` (drawn from `FakeCloudOptions.random`). */
  readonly probability?: number;
  /** The error thrown (the same object each time), or a factory; default a fresh {@link InjectedError}. */
  readonly error?: Error | ErrorFactory;
  /** Stop failing after this many injected failures; a positive integer (default: no limit). */
  readonly times?: number;
  /**
   * Fail only the calls about this subject, as the call log names it (`namespace/name` for load balancers,
   * the node name or providerID for instances, `cluster/targetNode` for routes). Calls about other subjects
   * are neither failed nor counted. Default: every subject.
   */
  readonly subject?: string;
}

/** A token-bucket throttle; calls refused by it throw {@link ThrottledError}. */
export interface ThrottlePolicy {
  /** Refill rate, in calls per second; finite and > 0. */
  readonly qps: number;
  /** Bucket capacity, in calls; an integer ≥ 1. The bucket starts full. */
  readonly burst: number;
  /** The methods sharing this bucket (default `'*'`: every method). */
  readonly methods?: MethodSelector;
}

interface ErrorState {
  readonly policy: ErrorPolicy;
  seen: number;
  injected: number;
}

interface Throttle {
  readonly bucket: TokenBucket;
  readonly methods: readonly FakeCloudMethod[] | '*';
}

/** Options of a {@link FaultInjector}. */
export interface FaultInjectorOptions {
  /** Monotonic clock in milliseconds (for throttles). */
  readonly now: () => number;
  /** Uniform random numbers in `[0, 1)` (for random latencies and probabilities). */
  readonly random: () => number;
}

function validateLatency(spec: LatencySpec): LatencySpec {
  if (typeof spec === 'number') {
    if (!Number.isFinite(spec) || spec < 0) {
      throw new RangeError(`latency: expected a finite number of milliseconds >= 0, got ${String(spec)}`);
    }
    return spec;
  }
  const { minMs, maxMs } = spec ?? {};
  if (typeof minMs !== 'number' || !Number.isFinite(minMs) || minMs < 0) {
    throw new RangeError(`latency.minMs: expected a finite number of milliseconds >= 0, got ${String(minMs)}`);
  }
  if (typeof maxMs !== 'number' || !Number.isFinite(maxMs) || maxMs < minMs) {
    throw new RangeError(`latency.maxMs: expected a finite number of milliseconds >= minMs, got ${String(maxMs)}`);
  }
  return { minMs, maxMs };
}

function validateErrorPolicy(policy: ErrorPolicy): ErrorPolicy {
  if (typeof policy !== 'object' || policy === null) {
    throw new TypeError('error policy: expected an object');
  }
  const { everyNth, probability, times, error, subject } = policy;
  if (subject !== undefined && typeof subject !== 'string') {
    throw new TypeError(`subject: expected a string, got ${typeof subject}`);
  }
  if (everyNth !== undefined && probability !== undefined) {
    throw new TypeError('error policy: give at most one of everyNth and probability');
  }
  if (everyNth !== undefined && (!Number.isInteger(everyNth) || everyNth < 1)) {
    throw new RangeError(`everyNth: expected a positive integer, got ${String(everyNth)}`);
  }
  if (probability !== undefined && !(probability >= 0 && probability <= 1)) {
    throw new RangeError(`probability: expected a number in [0, 1], got ${String(probability)}`);
  }
  if (times !== undefined && (!Number.isInteger(times) || times < 1)) {
    throw new RangeError(`times: expected a positive integer, got ${String(times)}`);
  }
  if (error !== undefined && !(error instanceof Error) && typeof error !== 'function') {
    throw new TypeError('error: expected an Error or a function returning one');
  }
  return { ...policy };
}

/**
 * Holds the latency, error and throttle policies of one {@link FakeCloud} (its `faults` property).
 * All durations are in milliseconds.
 */
export class FaultInjector {
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #latency = new Map<FakeCloudMethod | '*', LatencySpec>();
  readonly #errors = new Map<FakeCloudMethod | '*', ErrorState>();
  #throttles: Throttle[] = [];

  constructor(options: FaultInjectorOptions) {
    this.#now = options.now;
    this.#random = options.random;
  }

  /**
   * Delays every call of the selected methods by `latency` (ms) before it does anything else, after
   * any throttle admitted it. The delay honours the call's AbortSignal. `undefined` removes it.
   * @throws RangeError/TypeError naming the field on bad input.
   */
  setLatency(methods: MethodSelector, latency: LatencySpec | undefined): this {
    const selected = resolveSelector(methods, 'methods');
    const spec = latency === undefined ? undefined : validateLatency(latency);
    for (const key of selected === '*' ? (['*'] as const) : selected) {
      if (spec === undefined) this.#latency.delete(key);
      else this.#latency.set(key, spec);
    }
    return this;
  }

  /**
   * Makes calls of the selected methods fail as `policy` says (after their latency, before they
   * are recorded in `FakeCloud.calls`). `undefined` removes the policy.
   * @throws RangeError/TypeError naming the field on bad input.
   */
  injectError(methods: MethodSelector, policy: ErrorPolicy | undefined): this {
    const selected = resolveSelector(methods, 'methods');
    const state: ErrorState | undefined =
      policy === undefined ? undefined : { policy: validateErrorPolicy(policy), seen: 0, injected: 0 };
    for (const key of selected === '*' ? (['*'] as const) : selected) {
      if (state === undefined) this.#errors.delete(key);
      else this.#errors.set(key, state);
    }
    return this;
  }

  /**
   * Adds a token-bucket throttle over the selected methods. A call must find a token in every
   * throttle covering it; otherwise it throws {@link ThrottledError} with the longest wait (ms) and
   * takes no token anywhere.
   * @returns a function that removes this throttle.
   * @throws RangeError/TypeError naming the field on bad input.
   */
  throttle(policy: ThrottlePolicy): () => void {
    const methods = resolveSelector(policy.methods ?? '*', 'methods');
    const throttle: Throttle = {
      bucket: new TokenBucket(policy.qps, policy.burst, { now: this.#now }),
      methods,
    };
    this.#throttles.push(throttle);
    return () => {
      this.#throttles = this.#throttles.filter((t) => t !== throttle);
    };
  }

  /** Removes every latency, error and throttle policy. */
  clear(): void {
    this.#latency.clear();
    this.#errors.clear();
    this.#throttles = [];
  }

  /**
   * Admits a call of `method` through the throttles (taking one token from each covering bucket).
   * @throws ThrottledError when a bucket is empty.
   */
  admit(method: FakeCloudMethod): void {
    const covering = this.#throttles.filter((t) => t.methods === '*' || t.methods.includes(method));
    let waitMs = 0;
    for (const t of covering) waitMs = Math.max(waitMs, refillWaitMs(t.bucket));
    if (waitMs > 0) throw new ThrottledError(method, waitMs);
    for (const t of covering) t.bucket.reserve();
  }

  /** The latency of one call of `method`, in milliseconds (0 without a policy). */
  latencyMs(method: FakeCloudMethod): number {
    const spec = this.#latency.get(method) ?? this.#latency.get('*');
    if (spec === undefined) return 0;
    if (typeof spec === 'number') return spec;
    return spec.minMs + this.#random() * (spec.maxMs - spec.minMs);
  }

  /**
   * The error this call of `method` about `subject` must throw, or `undefined`; counts the call for the
   * policy when the policy covers that subject.
   */
  failure(method: FakeCloudMethod, subject = ''): Error | undefined {
    const state = this.#errors.get(method) ?? this.#errors.get('*');
    if (state === undefined) return undefined;
    const { policy } = state;
    if (policy.subject !== undefined && policy.subject !== subject) return undefined;
    if (policy.times !== undefined && state.injected >= policy.times) return undefined;
    const callNumber = ++state.seen;
    let fail: boolean;
    if (policy.everyNth !== undefined) fail = callNumber % policy.everyNth === 0;
    else if (policy.probability !== undefined) fail = this.#random() < policy.probability;
    else fail = true;
    if (!fail) return undefined;
    state.injected++;
    const { error } = policy;
    if (error === undefined) return new InjectedError(method);
    return typeof error === 'function' ? error({ method, callNumber, subject }) : error;
  }
}

/**
 * 0 when `bucket` has a token now (within {@link WHOLE_TOKEN}: a cloud counts whole calls, and ccm-kit's budget
 * grants at that very balance), else the whole milliseconds (≥ 1) until it has one by the same measure.
 */
function refillWaitMs(bucket: TokenBucket): number {
  const tokens = bucket.tokensAt();
  return tokens >= WHOLE_TOKEN ? 0 : Math.max(1, Math.ceil(((WHOLE_TOKEN - tokens) * 1000) / bucket.qps));
}

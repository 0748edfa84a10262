/**
 * The process' cloud budget: one token bucket that every cloud call draws from, served by priority lane, with a
 * minimum share for lower lanes and an AIMD rate under throttling. ccm-kit's own (upstream's cloud-provider
 * leaves quota to each vendor; client-go's `flowcontrol` token bucket is the model for the bucket). The app
 * makes one per process from `--cloud-api-qps` / `--cloud-api-burst`; docs/cloud-call-guard.md describes it and
 * docs/decisions/0063-cloud-budget.md why it counts what it counts.
 */
import type { Registry } from 'prom-client';
import { createLogger, type Logger } from '../logging.js';
import { CloudCallThrottledError, classifyCloudError, retryAfterOf } from '../guard/errors.js';
import { type Clock, realClock } from '../clock/clock.js';
import { WHOLE_TOKEN } from '../token-bucket/token-bucket.js';
import { AimdRate } from './aimd.js';
import { publishCloudBudgetCharge } from './charge.js';
import { CLOUD_LANES, type CloudLane, callContext, runInCallContext } from './lane.js';
import { type BudgetMetrics, budgetMetrics, reportBudgetRate } from './metrics.js';

/** Options of {@link CloudBudget}. Rates in calls per second, durations in ms. */
export interface CloudBudgetOptions {
  /** The configured rate (`--cloud-api-qps`): finite and > 0. */
  qps: number;
  /** The bucket size (`--cloud-api-burst`): an integer ≥ 1. The bucket starts full. */
  burst: number;
  /** Share of the tokens each waiting lower lane is guaranteed, in [0, 0.5); default 0.1. */
  minShare?: number;
  /** The lowest rate throttling lowers it to; default 0.1 (or `qps` when lower). */
  floorQps?: number;
  /**
   * Factor applied to the rate on a throttle answer; default 0.7 (CUBIC's multiplicative decrease, RFC 8312
   * β_cubic): one stray 429 of a budget set to the cloud's own rate then costs about 10 % of a minute's calls,
   * where 0.5 costs 20 % (bench/budget-aimd.ts, docs/decisions/0063-cloud-budget.md).
   */
  decrease?: number;
  /** Share of `qps` regained per `increaseIntervalMs` without a throttle; default 0.1. */
  increaseFraction?: number;
  /** Default 10000. */
  increaseIntervalMs?: number;
  /** The clock (epoch ms); default the real clock. Waits use `setTimeout`. */
  clock?: Clock;
  /** Whether a facet call's error is a throttle answer; default: `classifyCloudError(err) === 'throttled'`. */
  isThrottle?: (err: unknown) => boolean;
  /** Where the metrics register; default `metricsRegistry`. */
  registry?: Registry;
  /** Where throttle and lane messages are logged (default logger `cloud-budget`). */
  logger?: Logger;
}

interface Waiter {
  enqueuedAt: number;
  /** When the token was granted (epoch ms). */
  grantedAt: number;
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** The lanes below `'user'`, which are owed a minimum share while they wait. */
const LOWER_LANES: readonly CloudLane[] = CLOUD_LANES.slice(1);

function checkRange(name: string, value: number, ok: boolean, want: string): void {
  if (!ok) throw new RangeError(`cloud budget: ${name} must be ${want}, got ${String(value)}`);
}

/**
 * One per process. Lanes are served in strict priority (`user`, `hosts`, `periodic`), except that each lower
 * lane with waiting calls is owed `minShare` of the tokens granted, so it is never starved. A throttle answer
 * lowers the rate (×`decrease`, floor `floorQps`), empties the bucket and holds the call's lane until its
 * `Retry-After` has passed; the rate regains `increaseFraction`×`qps` per `increaseIntervalMs` without one.
 */
export class CloudBudget {
  /** The configured rate, in calls per second. */
  readonly configuredQps: number;
  /** The bucket size: how many calls may go at once after an idle period. */
  readonly burst: number;
  readonly #minShare: number;
  readonly #clock: Clock;
  readonly #aimd: AimdRate;
  readonly #metrics: BudgetMetrics;
  readonly #log: Logger;
  readonly #isThrottle: (err: unknown) => boolean;
  readonly #queues = new Map<CloudLane, Waiter[]>(CLOUD_LANES.map((l) => [l, []]));
  readonly #owed = new Map<CloudLane, number>(CLOUD_LANES.map((l) => [l, 0]));
  readonly #blockedUntil = new Map<CloudLane, number>(CLOUD_LANES.map((l) => [l, 0]));
  /** Throttle errors already counted (a guard's error is seen again by the facet call that made it). */
  readonly #seen = new WeakSet<object>();
  #waiting = 0;
  #tokens: number;
  #last: number;
  #timer: NodeJS.Timeout | undefined;

  /** @throws RangeError naming the option when a number is out of range. */
  constructor(options: CloudBudgetOptions) {
    const { qps, burst } = options;
    checkRange('qps', qps, Number.isFinite(qps) && qps > 0, 'finite and > 0');
    checkRange('burst', burst, Number.isInteger(burst) && burst >= 1, 'an integer >= 1');
    const minShare = options.minShare ?? 0.1;
    checkRange('minShare', minShare, minShare >= 0 && minShare < 0.5, 'in [0, 0.5)');
    const decrease = options.decrease ?? 0.7;
    checkRange('decrease', decrease, decrease > 0 && decrease < 1, 'in (0, 1)');
    const increaseFraction = options.increaseFraction ?? 0.1;
    checkRange('increaseFraction', increaseFraction, increaseFraction > 0 && increaseFraction <= 1, 'in (0, 1]');
    const increaseIntervalMs = options.increaseIntervalMs ?? 10_000;
    checkRange('increaseIntervalMs', increaseIntervalMs, increaseIntervalMs > 0, '> 0');
    const floorQps = Math.min(options.floorQps ?? 0.1, qps);
    checkRange('floorQps', floorQps, floorQps > 0, '> 0');
    this.configuredQps = qps;
    this.burst = burst;
    this.#minShare = minShare;
    this.#clock = options.clock ?? realClock;
    this.#last = this.#clock.now();
    this.#tokens = burst;
    this.#aimd = new AimdRate(
      { qps, floorQps, decrease, increaseFraction, increaseIntervalMs, holdMs: 1000 },
      this.#last,
    );
    this.#metrics = budgetMetrics(options.registry);
    reportBudgetRate(() => this.qps, options.registry);
    this.#log = options.logger ?? createLogger('cloud-budget');
    this.#isThrottle = options.isThrottle ?? ((err) => classifyCloudError(err) === 'throttled');
  }

  /** The rate allowed now, in calls per second (the configured one unless throttling lowered it). */
  get qps(): number {
    return this.#aimd.rate(this.#clock.now());
  }

  /**
   * Takes one token for a call of `operation` in the current lane (`withCloudLane`; `'user'` when none).
   * @returns `undefined` when a token was free at once (the caller goes on without awaiting), else a promise
   *   that resolves when the call may be sent.
   * @throws (the promise rejects with) `signal`'s reason when it aborts while waiting.
   */
  acquire(operation: string, signal?: AbortSignal): Promise<void> | undefined {
    const ctx = callContext();
    const lane = ctx?.lane ?? 'user';
    const controller = ctx?.controller ?? 'unknown';
    const now = this.#clock.now();
    if (this.#waiting === 0 && this.#blockedUntil.get(lane)! <= now) {
      this.#refill(now);
      if (this.#tokens >= WHOLE_TOKEN) {
        this.#tokens -= 1;
        this.#charge(lane, controller, operation, 0);
        return undefined;
      }
    }
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    let waiter!: Waiter;
    const granted = new Promise<void>((resolve, reject) => {
      waiter = { enqueuedAt: now, grantedAt: now, resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const queue = this.#queues.get(lane)!;
          const i = queue.indexOf(waiter);
          if (i < 0) return;
          queue.splice(i, 1);
          this.#waiting--;
          reject(signal.reason);
          this.#pump();
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#queues.get(lane)!.push(waiter);
      this.#waiting++;
      this.#pump();
    });
    // Charged in the caller's asynchronous context (a promise reaction runs in the context it was registered
    // in), so a listener of onCloudBudgetCharge sees the caller's tracing span, not the timer's.
    return granted.then(() => this.#charge(lane, controller, operation, waiter.grantedAt - waiter.enqueuedAt));
  }

  /**
   * Runs a facet call `fn` (a controller's call through the app's provider proxy) under the budget: takes a
   * token, then runs `fn` with that token prepaid for the first request the provider's `CloudCallGuard` sends
   * inside it, so that a call is counted once whether or not the provider uses the guard
   * (docs/decisions/0063-cloud-budget.md). A throttle error `fn` rejects with (the `isThrottle` option) is
   * reported to {@link CloudBudget.observeThrottle}.
   * @returns what `fn` returns, after the wait if there was one.
   * @throws (the promise rejects with) what `fn` throws, or `signal`'s reason when it aborts while waiting.
   */
  run<T>(operation: string, fn: () => T, signal?: AbortSignal): T | Promise<Awaited<T>> {
    const call = () =>
      runInCallContext({ prepaid: { used: false } }, () => {
        const result = fn();
        if (!(result instanceof Promise)) return result;
        return result.catch((err: unknown) => {
          if (this.#isThrottle(err)) this.observeThrottle(operation, err);
          throw err;
        }) as T;
      });
    const wait = this.acquire(operation, signal);
    return wait ? (wait.then(call) as Promise<Awaited<T>>) : call();
  }

  /**
   * Takes a token for one request of a provider's `CloudCallGuard`: the prepaid token of the enclosing facet
   * call if it is still unused, else a new one ({@link CloudBudget.acquire}).
   */
  acquireRequest(operation: string, signal?: AbortSignal): Promise<void> | undefined {
    const prepaid = callContext()?.prepaid;
    if (prepaid && !prepaid.used) {
      prepaid.used = true;
      return undefined;
    }
    return this.acquire(operation, signal);
  }

  /**
   * Reports a throttle answer (HTTP 429, `Retry-After`) to a call of the current lane: the first report of an
   * error object lowers the rate, empties the bucket and holds the lane for `retryAfterMs` (default: the
   * error's `retryAfterMs` property). A `CloudCallThrottledError` (the guard refusing to send while an earlier answer's
   * `Retry-After` runs) is no new answer and only marks the current reconcile as throttled.
   */
  observeThrottle(operation: string, err: unknown, retryAfterMs: number | undefined = retryAfterOf(err)): void {
    const ctx = callContext();
    const lane = ctx?.lane ?? 'user';
    const now = this.#clock.now();
    ctx?.reconcile?.throttles.push({ err, lane, delayMs: Math.max(retryAfterMs ?? 1000, this.delayMs(lane)) });
    if (typeof err === 'object' && err !== null) {
      if (this.#seen.has(err)) return;
      this.#seen.add(err);
    }
    if (err instanceof CloudCallThrottledError) return;
    this.#metrics.throttles.inc({ lane });
    this.#refill(now);
    const lowered = this.#aimd.throttled(now);
    this.#tokens = Math.min(this.#tokens, 0);
    if (retryAfterMs !== undefined)
      this.#blockedUntil.set(lane, Math.max(this.#blockedUntil.get(lane)!, now + retryAfterMs));
    const qps = this.#aimd.rate(now);
    const fields = { lane, controller: ctx?.controller ?? 'unknown', operation, retryAfterMs, qps };
    if (lowered) this.#log.info('Cloud API throttled a call; lowering the cloud budget', fields);
    else this.#log.v(4).info('Cloud API throttled a call', fields);
    this.#pump();
  }

  /** Milliseconds until `lane` may send again after a `Retry-After` (0 when it is not held). */
  delayMs(lane: CloudLane): number {
    return Math.max(0, this.#blockedUntil.get(lane)! - this.#clock.now());
  }

  /** Refills the bucket up to `now` at the current rate. */
  #refill(now: number): void {
    const elapsed = Math.max(0, now - this.#last);
    this.#last = Math.max(this.#last, now);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed / 1000) * this.#aimd.rate(now));
  }

  #charge(lane: CloudLane, controller: string, operation: string, waitedMs: number): void {
    this.#metrics.calls.inc({ controller, lane });
    this.#metrics.waitSeconds.observe({ lane }, waitedMs / 1000);
    publishCloudBudgetCharge({ lane, controller, operation, waitedMs });
  }

  /** The lane served next: a lower lane owed its minimum share, else the highest lane that may send. */
  #pick(now: number): CloudLane | undefined {
    const ready = (l: CloudLane) => this.#queues.get(l)!.length > 0 && this.#blockedUntil.get(l)! <= now;
    for (const l of LOWER_LANES) if (ready(l) && this.#owed.get(l)! >= WHOLE_TOKEN) return l;
    return CLOUD_LANES.find(ready);
  }

  /** Grants tokens to waiters while there are tokens, then sets a timer for the next grant. */
  #pump(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#waiting === 0) return;
    const now = this.#clock.now();
    this.#refill(now);
    while (this.#tokens >= WHOLE_TOKEN) {
      const lane = this.#pick(now);
      if (lane === undefined) break;
      const waiter = this.#queues.get(lane)!.shift()!;
      this.#waiting--;
      this.#tokens -= 1;
      // Every waiting lower lane is owed minShare of this grant; the lane served pays one token off.
      for (const l of LOWER_LANES) {
        const waits = l === lane || this.#queues.get(l)!.length > 0;
        this.#owed.set(l, waits ? this.#owed.get(l)! + this.#minShare : 0);
      }
      if (lane !== 'user') this.#owed.set(lane, Math.max(0, this.#owed.get(lane)! - 1));
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.grantedAt = now;
      waiter.resolve();
    }
    if (this.#waiting === 0) return;
    const tokenWait = this.#tokens >= WHOLE_TOKEN ? 0 : ((1 - this.#tokens) / this.#aimd.rate(now)) * 1000;
    let next = Number.POSITIVE_INFINITY;
    for (const l of CLOUD_LANES) {
      if (this.#queues.get(l)!.length > 0) next = Math.min(next, Math.max(tokenWait, this.delayMs(l)));
    }
    this.#timer = setTimeout(() => this.#pump(), Math.max(1, Math.ceil(next)));
  }
}

/**
 * Failure injection for the mock API: scripted faults (429 with `Retry-After`, 5xx, dropped
 * connections, slow answers), a random failure rate (503) and an optional fixed-window rate limit.
 * Admin requests are never affected.
 */

/** One scripted fault. Matching rules apply in the order added; the first with `count` left wins. */
export interface FaultRule {
  /** Answer with this HTTP status (for example 429 or 503) instead of handling the request. Omit for latency only. */
  status?: number;
  /** `Retry-After` header in whole seconds (sent with any status). */
  retryAfterSeconds?: number;
  /** Close the connection without answering, which the client sees as a network error. */
  reset?: boolean;
  /** Delay before answering (or resetting), in ms. */
  latencyMs?: number;
  /** Only requests with this HTTP method (case-insensitive). */
  method?: string;
  /** Only requests whose path starts with this, for example `/v1/load_balancers`. */
  pathPrefix?: string;
  /** How many matching requests the rule applies to; default unlimited. */
  count?: number;
}

/** A fault chosen for one request. */
export interface AppliedFault {
  status?: number;
  retryAfterSeconds?: number;
  reset: boolean;
  latencyMs: number;
}

/** A fixed-window rate limit: at most `limit` requests per `windowMs`, then 429 with `Retry-After`. */
export interface RateLimit {
  limit: number;
  /** Window length in ms. */
  windowMs: number;
}

/** Problems of a fault rule (for the admin endpoint); empty when valid. */
export function faultRuleProblems(rule: unknown): string[] {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) return ['a fault rule must be an object'];
  const r = rule as Record<string, unknown>;
  const problems: string[] = [];
  const int = (k: string, min: number, max = Number.MAX_SAFE_INTEGER) => {
    const v = r[k];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)) {
      problems.push(`${k} must be an integer in ${min}-${max}`);
    }
  };
  int('status', 100, 599);
  int('retryAfterSeconds', 0);
  int('latencyMs', 0);
  int('count', 1);
  if (r.reset !== undefined && typeof r.reset !== 'boolean') problems.push('reset must be a boolean');
  if (r.method !== undefined && typeof r.method !== 'string') problems.push('method must be a string');
  if (r.pathPrefix !== undefined && typeof r.pathPrefix !== 'string') problems.push('pathPrefix must be a string');
  if (r.status === undefined && r.reset !== true && r.latencyMs === undefined) {
    problems.push('a fault rule needs status, reset or latencyMs');
  }
  return problems;
}

/** The fault table and rate limit of one server. */
export class FaultInjector {
  readonly #rules: { rule: FaultRule; left: number }[] = [];
  /** Delay added to every API request, in ms. */
  latencyMs = 0;
  /** Share of API requests (0–1) answered 503 at random, after the rules; 0 disables. */
  failureRate = 0;
  #rateLimit: RateLimit | undefined;
  #windowStart = 0;
  #windowCount = 0;

  /**
   * @param now clock in epoch ms (rate limit windows)
   * @param random source of [0, 1) numbers for {@link failureRate} (seed it for reproducible runs)
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  /** Adds a rule (see {@link FaultRule}). */
  add(rule: FaultRule): void {
    this.#rules.push({ rule: { ...rule }, left: rule.count ?? Number.POSITIVE_INFINITY });
  }

  /** Removes every rule and the rate limit, and sets the latency and the failure rate back to 0. */
  clear(): void {
    this.#rules.length = 0;
    this.latencyMs = 0;
    this.failureRate = 0;
    this.#rateLimit = undefined;
  }

  /** The rules with how many uses each has left. */
  list(): (FaultRule & { remaining: number | null })[] {
    return this.#rules.map(({ rule, left }) => ({
      ...rule,
      remaining: Number.isFinite(left) ? left : null,
    }));
  }

  /** Sets or removes the rate limit; a new window starts now. */
  setRateLimit(limit: RateLimit | undefined): void {
    this.#rateLimit = limit && { ...limit };
    this.#windowStart = this.now();
    this.#windowCount = 0;
  }

  /** Decides the fault of one API request (consuming a rule use or a rate-limit slot). */
  decide(method: string, path: string): AppliedFault {
    const out: AppliedFault = { reset: false, latencyMs: this.latencyMs };
    const entry = this.#rules.find(
      ({ rule, left }) =>
        left > 0 &&
        (rule.method === undefined || rule.method.toUpperCase() === method.toUpperCase()) &&
        (rule.pathPrefix === undefined || path.startsWith(rule.pathPrefix)),
    );
    if (entry) {
      entry.left--;
      const { rule } = entry;
      out.latencyMs += rule.latencyMs ?? 0;
      out.reset = rule.reset ?? false;
      if (rule.status !== undefined) out.status = rule.status;
      if (rule.retryAfterSeconds !== undefined) out.retryAfterSeconds = rule.retryAfterSeconds;
      if (out.status !== undefined || out.reset) return out;
    }
    if (this.failureRate > 0 && this.random() < this.failureRate) {
      out.status = 503;
      return out;
    }
    const rl = this.#rateLimit;
    if (rl) {
      const now = this.now();
      if (now - this.#windowStart >= rl.windowMs) {
        this.#windowStart = now;
        this.#windowCount = 0;
      }
      if (this.#windowCount >= rl.limit) {
        out.status = 429;
        out.retryAfterSeconds = Math.max(1, Math.ceil((this.#windowStart + rl.windowMs - now) / 1000));
        return out;
      }
      this.#windowCount++;
    }
    return out;
  }
}

/**
 * The cloud API quota of fakebench (the W9 workload of bench/compare.ts): a token bucket of `rps` tokens a
 * second holding at most `rps` (burst = rps), and the error a throttled call gets, shaped as an HTTP client
 * surfaces a `429 Too Many Requests` with `Retry-After: 1` (a numeric `status` and `retryAfterMs`, the fields
 * `classifyCloudError` and `parseRetryAfter` of @ccm-kit/runtime read; docs/cloud-call-guard.md). The Go twin
 * is `tokenBucket` in bench/upstream-ccm/quota.go, with the same arithmetic.
 *
 * A rejected call takes no token (a cloud refuses it before doing any work), so a client that keeps calling
 * while throttled is answered again as soon as a token has accrued.
 */
import { WHOLE_TOKEN } from '@ccm-kit/runtime/internal';

/** The `Retry-After` fakebench sends with a 429, milliseconds (the header's `1`). */
export const RETRY_AFTER_MS = 1_000;

/** A call fakebench refused because the quota was spent: HTTP 429 with `Retry-After: 1`. */
export class CloudThrottledError extends Error {
  /** The HTTP status, as an HTTP client's error carries it. */
  readonly status = 429;
  /** The `Retry-After` header in milliseconds. */
  readonly retryAfterMs = RETRY_AFTER_MS;

  constructor(method: string) {
    super(`fakebench: ${method}: 429 Too Many Requests (Retry-After: 1)`);
    this.name = 'CloudThrottledError';
  }
}

/**
 * A token bucket: `rate` tokens a second, at most `burst` held, full at creation. A balance of
 * {@link WHOLE_TOKEN} counts as a token: the floating-point sum of the refills can fall short of a whole by about
 * 1e-15, and a cloud, counting whole calls, would answer a call that ccm-kit's budget (which uses the same
 * tolerance) granted at that very millisecond.
 * @throws Error when `rate` or `burst` is not a positive finite number.
 */
export class TokenBucket {
  readonly rate: number;
  readonly burst: number;
  #tokens: number;
  #lastMs: number;

  /** @param nowMs the clock, Unix milliseconds (tests pass their own) */
  constructor(rate: number, burst: number, nowMs: number) {
    if (!Number.isFinite(rate) || rate <= 0)
      throw new Error(`token bucket: rate must be a positive number, got ${rate}`);
    if (!Number.isFinite(burst) || burst <= 0)
      throw new Error(`token bucket: burst must be a positive number, got ${burst}`);
    this.rate = rate;
    this.burst = burst;
    this.#tokens = burst;
    this.#lastMs = nowMs;
  }

  /** Takes one token at `nowMs` (milliseconds, never earlier than the last call's); false when none is left. */
  take(nowMs: number): boolean {
    const elapsed = Math.max(0, nowMs - this.#lastMs);
    this.#lastMs = Math.max(this.#lastMs, nowMs);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.rate) / 1000);
    if (this.#tokens < WHOLE_TOKEN) return false;
    this.#tokens -= 1;
    return true;
  }
}

/**
 * Reads `FAKEBENCH_RPS`: the quota in calls a second (a positive integer), or undefined when unset, empty or 0.
 * @throws Error naming the variable on anything else.
 */
export function parseRps(value: string | undefined): number | undefined {
  if (value === undefined || value === '' || value === '0') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new Error(
      `FAKEBENCH_RPS must be a non-negative integer (cloud calls a second; 0 or unset: no quota), got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

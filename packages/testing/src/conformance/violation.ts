/**
 * How a conformance check fails: a {@link ConformanceViolation} whose message says what the provider
 * did, what the contract asks for, and why it matters. Plain errors (no test-runner assertions), so the
 * checks run under any runner.
 */

/** A provider broke the contract. `check` is the id of the failing check (for example `loadBalancer/delete`). */
export class ConformanceViolation extends Error {
  /** The id of the failing check, `<facet>/<slug>` (for example `loadBalancer/delete`). */
  readonly check: string;

  constructor(check: string, message: string, options?: ErrorOptions) {
    super(`[${check}] ${message}`, options);
    this.name = 'ConformanceViolation';
    this.check = check;
  }
}

/** The outcome of a call, without throwing. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Settles `promise` into an {@link Outcome}. */
export async function outcome<T>(promise: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

/** A short, single-line rendering of a value for messages (at most ~300 characters). */
export function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  let text: string;
  try {
    text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

/** The error's name and message, for messages. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return `a non-Error value ${show(err)}`;
}

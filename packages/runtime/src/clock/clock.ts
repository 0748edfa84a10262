/**
 * A wall clock that can be replaced in tests (client-go's `clock.Clock`, reduced to what ccm-kit needs).
 * Times are milliseconds since the Unix epoch, as `Date.now()`. The default reads `Date.now()` on every
 * call, so vitest's fake timers (which mock `Date`) drive every ccm-kit component that uses it.
 */
export interface Clock {
  /** The current time in milliseconds since the epoch. */
  now(): number;
}

/** The real clock: `Date.now()`. */
export const realClock: Clock = Object.freeze({ now: () => Date.now() });

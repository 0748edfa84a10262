/**
 * `metav1.Time` / `metav1.MicroTime` handling for client-node 2.x.
 *
 * Writing: Lease `acquireTime`/`renewTime` and events.k8s.io `eventTime` are MicroTime and must be
 * sent with 6 fraction digits; a plain `Date` serialises with 3 and the apiserver rejects it.
 * `V1MicroTime` prints 6 digits. Reading: MicroTime fields arrive as strings even though the
 * generated types say `Date`, and informer objects carry every timestamp as a string, so read any
 * timestamp through {@link parseTime}.
 */
import { V1MicroTime } from './client-node-parts.js';

/** The current time as a `V1MicroTime` (serialises as `2006-01-02T15:04:05.000000Z`). */
export function microTimeNow(): V1MicroTime {
  return new V1MicroTime(Date.now());
}

/**
 * Converts a time (a `Date`, an RFC 3339 string or epoch milliseconds) to `V1MicroTime` for writing.
 * @throws TypeError when the value is not a valid time.
 */
export function toMicroTime(t: Date | string | number): V1MicroTime {
  const d = parseTime(t);
  if (d === undefined) throw new TypeError('toMicroTime: time is required');
  return new V1MicroTime(d.getTime());
}

/**
 * Reads a timestamp as returned by client-node: an RFC 3339 string, a `Date`, or epoch
 * milliseconds. Returns `undefined` for `null`, `undefined` and `''` (an unset time).
 * @throws TypeError naming the value when it is not a valid time.
 */
export function parseTime(x: string | Date | number | null | undefined): Date | undefined {
  if (x === undefined || x === null || x === '') return undefined;
  let d: Date;
  if (x instanceof Date) d = new Date(x.getTime());
  else if (typeof x === 'string' || typeof x === 'number') d = new Date(x);
  else throw new TypeError(`parseTime: expected a string, Date or number, got ${typeof x}`);
  if (Number.isNaN(d.getTime())) throw new TypeError(`parseTime: not a valid time: ${JSON.stringify(x)}`);
  return d;
}

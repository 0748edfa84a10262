/**
 * A small two-way strategic-merge-patch generator for the fields the cloud controllers write.
 * Follows the output of apimachinery's `strategicpatch.CreateTwoWayMergePatch` (upstream `k8s.io/cloud-provider node/helpers/taints.go`; upstream `k8s.io/cloud-provider service/helpers/helper.go`):
 * - objects are diffed key by key; a removed key becomes `null`;
 * - a primitive list with the `merge` strategy (`metadata.finalizers`) gives the added items (sorted,
 *   unique), `$deleteFromPrimitiveList/<key>` for removed ones and `$setElementOrder/<key>` (the new list);
 * - a list with a merge key (`metadata.ownerReferences`, `status.conditions`, …) that changed is sent whole,
 *   followed by the element `{"$patch":"replace"}` (equivalent to, not byte-identical with, upstream's
 *   per-element form);
 * - every other list is atomic and replaced whole;
 * - keys are sorted at every level, so `JSON.stringify` gives Go's bytes;
 * - values are first brought to their JSON form as Go would marshal them: `undefined`/`null` fields and
 *   empty lists are omitted (`omitempty`), and `Date`s become RFC 3339 second-precision strings.
 */

/** A JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** How a list field is merged, by its dotted path from the object root (for example `metadata.finalizers`). */
export type ListStrategy = { kind: 'atomic' } | { kind: 'mergePrimitive' } | { kind: 'mergeByKey'; key: string };

/** The list strategies of the Node and Service fields these helpers touch. Paths not listed are atomic. */
export const DEFAULT_LIST_STRATEGIES: Readonly<Record<string, ListStrategy>> = Object.freeze({
  'metadata.finalizers': { kind: 'mergePrimitive' },
  'metadata.ownerReferences': { kind: 'mergeByKey', key: 'uid' },
  'status.conditions': { kind: 'mergeByKey', key: 'type' },
  'status.addresses': { kind: 'mergeByKey', key: 'type' },
});

/** RFC 3339 with second precision, as `metav1.Time` marshals (`2006-01-02T15:04:05Z`). */
function formatTime(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/**
 * Converts `value` to the JSON Go would send: drops `undefined`, `null` fields and empty arrays,
 * turns `Date`s into RFC 3339 (seconds), and copies class instances into plain objects.
 * Returns `undefined` when the value itself is omitted.
 */
export function toJsonValue(value: unknown): JsonValue | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return formatTime(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    return value.map((v) => toJsonValue(v) ?? null);
  }
  if (typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      const j = toJsonValue(v);
      if (j !== undefined) out[k] = j;
    }
    return out;
  }
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  return value as JsonValue;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep equality of JSON values (object key order ignored). */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Copies `v` with object keys sorted at every level (Go marshals maps sorted). */
export function sortJsonKeys(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(sortJsonKeys);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort()) out[k] = sortJsonKeys(v[k] as JsonValue);
    return out;
  }
  return v;
}

function scalarKey(v: JsonValue): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function uniqueSorted(list: JsonValue[]): JsonValue[] {
  const byKey = new Map<string, JsonValue>();
  for (const v of list) byKey.set(scalarKey(v), v);
  return [...byKey.keys()].sort().map((k) => byKey.get(k) as JsonValue);
}

function diffLists(
  patch: JsonObject,
  key: string,
  original: JsonValue[],
  modified: JsonValue[],
  strategy: ListStrategy,
): void {
  if (jsonEqual(original, modified)) return;
  if (strategy.kind === 'mergePrimitive') {
    const before = new Set(original.map(scalarKey));
    const after = new Set(modified.map(scalarKey));
    const added = uniqueSorted(modified).filter((v) => !before.has(scalarKey(v)));
    const deleted = uniqueSorted(original).filter((v) => !after.has(scalarKey(v)));
    if (added.length > 0) patch[key] = added;
    if (deleted.length > 0) patch[`$deleteFromPrimitiveList/${key}`] = deleted;
    if (added.length > 0 || deleted.length > 0) patch[`$setElementOrder/${key}`] = modified;
    return;
  }
  if (strategy.kind === 'mergeByKey') {
    patch[key] = [...modified, { $patch: 'replace' }];
    return;
  }
  patch[key] = modified;
}

function diffObjects(
  original: JsonObject,
  modified: JsonObject,
  path: string,
  strategies: Readonly<Record<string, ListStrategy>>,
): JsonObject {
  const patch: JsonObject = {};
  for (const [key, mv] of Object.entries(modified)) {
    const ov = original[key];
    const childPath = path === '' ? key : `${path}.${key}`;
    if (ov === undefined) {
      if (isObject(mv) && Object.keys(mv).length === 0) continue;
      patch[key] = mv;
    } else if (jsonEqual(ov, mv)) {
      // unchanged
    } else if (isObject(ov) && isObject(mv)) {
      const sub = diffObjects(ov, mv, childPath, strategies);
      if (Object.keys(sub).length > 0) patch[key] = sub;
    } else if (Array.isArray(ov) && Array.isArray(mv)) {
      diffLists(patch, key, ov, mv, strategies[childPath] ?? { kind: 'atomic' });
    } else {
      patch[key] = mv;
    }
  }
  for (const [key, ov] of Object.entries(original)) {
    if (key in modified) continue;
    if (isObject(ov)) {
      // A struct that became empty: clear its fields one by one, so sibling fields survive.
      const sub = diffObjects(ov, {}, path === '' ? key : `${path}.${key}`, strategies);
      if (Object.keys(sub).length > 0) patch[key] = sub;
    } else {
      patch[key] = null;
    }
  }
  return patch;
}

/**
 * The two-way strategic merge patch that turns `original` into `modified` (both converted with
 * {@link toJsonValue} first). Returns `{}` when they are equal. Keys are sorted at every level.
 * @param strategies - list strategies by dotted path; default {@link DEFAULT_LIST_STRATEGIES}.
 */
export function createTwoWayMergePatch(
  original: unknown,
  modified: unknown,
  strategies: Readonly<Record<string, ListStrategy>> = DEFAULT_LIST_STRATEGIES,
): JsonObject {
  const o = toJsonValue(original);
  const m = toJsonValue(modified);
  const patch = diffObjects(isObject(o) ? o : {}, isObject(m) ? m : {}, '', strategies);
  return sortJsonKeys(patch) as JsonObject;
}

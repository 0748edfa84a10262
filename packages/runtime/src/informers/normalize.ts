/**
 * One object shape for every handler. Watch events carry the server's JSON (timestamps as strings);
 * list results from client-node's typed methods are deserialised models (`Date` instances, no
 * `apiVersion`/`kind`). The informer turns both into plain JSON with `apiVersion` and `kind` set,
 * then applies the transform (by default stripping `metadata.managedFields`).
 */
import { V1MicroTime } from '../client/client-node-parts.js';

/** A function applied to every object before it is cached (client-go `TransformFunc`). It may mutate its argument. */
export type TransformFunc<T = unknown> = (obj: Record<string, unknown>) => T;

/** RFC 3339 as the apiserver writes `metav1.Time`: whole seconds when there is no fraction. */
function formatDate(d: Date): string {
  if (d instanceof V1MicroTime) return d.toISOString();
  const iso = d.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/**
 * A deep copy as plain JSON data: `Date`s become RFC 3339 strings, `undefined` members are dropped.
 * Objects that are already plain JSON are copied unchanged.
 */
export function toPlainObject<T = Record<string, unknown>>(obj: unknown): T {
  return JSON.parse(
    JSON.stringify(obj, function (this: Record<string, unknown>, key: string, value: unknown) {
      const raw = key === '' ? obj : this[key];
      return raw instanceof Date ? formatDate(raw) : value;
    }),
  ) as T;
}

/** Sets `apiVersion` and `kind` when missing (list items have neither). Mutates and returns `obj`. */
export function ensureTypeMeta<T extends Record<string, unknown>>(obj: T, apiVersion?: string, kind?: string): T {
  if (apiVersion && obj.apiVersion === undefined) (obj as Record<string, unknown>).apiVersion = apiVersion;
  if (kind && obj.kind === undefined) (obj as Record<string, unknown>).kind = kind;
  return obj;
}

/**
 * The default transform: drops `metadata.managedFields` (often most of an object's size). It
 * replaces `metadata` with a copy rather than deleting the property, which would switch V8 to a
 * slower, larger dictionary representation of the object.
 */
export function stripManagedFields<T>(obj: Record<string, unknown>): T {
  const meta = obj.metadata as Record<string, unknown> | undefined;
  if (meta && 'managedFields' in meta) {
    const { managedFields: _dropped, ...rest } = meta;
    obj.metadata = rest;
  }
  return obj as T;
}

/**
 * The default transform of the Node informer (decision 0033): {@link stripManagedFields}, and drops
 * `status.images` (the container images on the Node, most of its size; no controller or provider reads
 * them from a cloud-controller-manager). Everything else stays: addresses, labels, annotations, spec,
 * conditions, nodeInfo, capacity, allocatable, volumes. The server's copy keeps its images: the only
 * full-object write (cloud-node's PUT of the Node) cannot change the status, whose writes are patches.
 */
export function stripManagedFieldsAndNodeImages<T>(obj: Record<string, unknown>): T {
  stripManagedFields(obj);
  const status = obj.status as Record<string, unknown> | undefined;
  if (status && 'images' in status) {
    const { images: _dropped, ...rest } = status;
    obj.status = rest;
  }
  return obj as T;
}

/** A transform that keeps objects unchanged. */
export function identityTransform<T>(obj: Record<string, unknown>): T {
  return obj as T;
}

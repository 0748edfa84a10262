/**
 * Cache keys (client-go `cache.MetaNamespaceKeyFunc` / `SplitMetaNamespaceKey`): `name` for
 * cluster-scoped objects, `namespace/name` for namespaced ones.
 */
import type { DeletedFinalStateUnknown } from '@ccm-kit/cloud-provider';
import { isTombstone } from './tombstone.js';

/** The minimum an object needs to have a key. */
export interface ObjectWithMeta {
  /** The object's metadata; the key reads `name` and `namespace`. */
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; uid?: string } | undefined;
}

/**
 * The key of an object, or of a tombstone (its stored key).
 * @throws TypeError when the object has no `metadata.name`.
 */
export function metaNamespaceKey(obj: ObjectWithMeta | DeletedFinalStateUnknown<unknown>): string {
  if (isTombstone(obj)) return obj.key;
  const meta = (obj as ObjectWithMeta).metadata;
  const name = meta?.name;
  if (typeof name !== 'string' || name === '') throw new TypeError('metaNamespaceKey: object has no metadata.name');
  const ns = meta?.namespace;
  return ns ? `${ns}/${name}` : name;
}

/**
 * Splits a key into namespace (absent for cluster-scoped keys) and name.
 * @throws TypeError for a key with more than one `/` or an empty part.
 */
export function splitMetaNamespaceKey(key: string): { namespace?: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1 && parts[0] !== '') return { name: parts[0] as string };
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '')
    return { namespace: parts[0] as string, name: parts[1] as string };
  throw new TypeError(`unexpected key format: ${JSON.stringify(key)}`);
}

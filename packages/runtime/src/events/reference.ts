/**
 * Object references for events, as client-go `tools/reference.GetReference`.
 */
import type { V1ObjectReference } from '@kubernetes/client-node';
import type { EventObject } from './types.js';

/**
 * apiVersion/kind of client-node model classes, for objects deserialised by the typed client, which
 * (like Go's typed objects) carry no `apiVersion`/`kind` when they come from a list.
 */
const modelKinds: Readonly<Record<string, { apiVersion: string; kind: string }>> = {
  V1Node: { apiVersion: 'v1', kind: 'Node' },
  V1Service: { apiVersion: 'v1', kind: 'Service' },
  V1Pod: { apiVersion: 'v1', kind: 'Pod' },
  V1Namespace: { apiVersion: 'v1', kind: 'Namespace' },
  V1ConfigMap: { apiVersion: 'v1', kind: 'ConfigMap' },
  V1Secret: { apiVersion: 'v1', kind: 'Secret' },
  V1Endpoints: { apiVersion: 'v1', kind: 'Endpoints' },
  V1PersistentVolume: { apiVersion: 'v1', kind: 'PersistentVolume' },
  V1PersistentVolumeClaim: { apiVersion: 'v1', kind: 'PersistentVolumeClaim' },
  V1ServiceAccount: { apiVersion: 'v1', kind: 'ServiceAccount' },
  V1Lease: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
  V1EndpointSlice: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' },
};

function isReference(o: EventObject): o is V1ObjectReference {
  return !('metadata' in o) && ('name' in o || 'uid' in o);
}

/**
 * The `ObjectReference` of `object`: apiVersion, kind, name, namespace, uid and resourceVersion
 * (only the fields that are set). A reference is returned as a copy. When `apiVersion`/`kind` are
 * missing they are taken from the client-node model class (`V1Node` → `v1`/`Node`).
 *
 * @throws TypeError when `object` is not an object, has no metadata, or its apiVersion/kind cannot be found.
 */
export function getReference(object: EventObject): V1ObjectReference {
  if (object === null || typeof object !== 'object') throw new TypeError('event object must be an object');
  if (isReference(object)) {
    if (!object.kind || !object.apiVersion) throw new TypeError('object reference needs apiVersion and kind');
    return { ...object };
  }
  const meta = object.metadata;
  if (!meta) throw new TypeError('event object has no metadata');
  const known = modelKinds[(object as { constructor?: { name?: string } }).constructor?.name ?? ''];
  const apiVersion = object.apiVersion || known?.apiVersion;
  const kind = object.kind || known?.kind;
  if (!apiVersion || !kind) {
    throw new TypeError(
      `cannot reference ${meta.namespace ? `${meta.namespace}/` : ''}${meta.name ?? '<unnamed>'}: the object has no apiVersion/kind`,
    );
  }
  const ref: V1ObjectReference = { apiVersion, kind };
  if (meta.name !== undefined) ref.name = meta.name;
  if (meta.namespace) ref.namespace = meta.namespace;
  if (meta.uid !== undefined) ref.uid = meta.uid;
  if (meta.resourceVersion !== undefined) ref.resourceVersion = meta.resourceVersion;
  return ref;
}

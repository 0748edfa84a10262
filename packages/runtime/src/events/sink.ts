/**
 * The event sink over client-node's `CoreV1Api` (client-go's `EventSinkImpl` for `Events("")`):
 * `createNamespacedEvent`, and `patchNamespacedEvent` sent as a strategic merge patch (client-node's
 * default PATCH content type is JSON Patch, which the API server would reject for an object body).
 */
import { type CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { EventSink } from './types.js';

/** An {@link EventSink} writing core/v1 Events with `api`. */
export function coreV1EventSink(api: CoreV1Api): EventSink {
  return {
    create: (namespace, event) => api.createNamespacedEvent({ namespace, body: event }),
    patch: (namespace, name, body) =>
      api.patchNamespacedEvent(
        { namespace, name, body },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      ),
  };
}

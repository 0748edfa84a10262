/**
 * The event sink over client-node's `CoreV1Api` (client-go's `EventSinkImpl` for `Events("")`):
 * `createNamespacedEvent`, and `patchNamespacedEvent` sent as a strategic merge patch (client-node's
 * default PATCH content type is JSON Patch, which the API server would reject for an object body).
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { patchOptions } from '@ccm-kit/cloud-provider/internal';
import type { EventSink } from './types.js';

/** The two Event calls of the sink (client-node's `CoreV1Api` and the runtime's `CoreV1Client` satisfy it). */
export type EventClient = Pick<CoreV1Api, 'createNamespacedEvent' | 'patchNamespacedEvent'>;

/** An {@link EventSink} writing core/v1 Events with `api`. */
export function coreV1EventSink(api: EventClient): EventSink {
  return {
    create: (namespace, event) => api.createNamespacedEvent({ namespace, body: event }),
    patch: (namespace, name, body) => api.patchNamespacedEvent({ namespace, name, body }, patchOptions('strategic')),
  };
}

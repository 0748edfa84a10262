/**
 * The event recorder (client-go `recorderImpl`): builds a core/v1 Event about an object and hands it
 * to the broadcaster, without waiting. Invalid input (an object without metadata or kind, an unknown
 * event type) is logged and the event dropped, as upstream; `event` never throws.
 */
import type { CoreV1Event, V1ObjectReference } from '@kubernetes/client-node';
import type { Logger } from '../logging.js';
import type { Clock } from '../clock/clock.js';
import { sprintf } from '../sprintf/sprintf.js';
import { eventName } from './keys.js';
import { getReference } from './reference.js';
import type { EventObject, EventRecorder, EventType } from './types.js';

/** The component (and optional host) an event comes from (`v1.EventSource`). */
export interface EventSourceInfo {
  /** The component name, for example `cloud-node-controller`. */
  component: string;
  /** The host (node) name the component runs on, when known. */
  host?: string;
}

/**
 * Builds the Event upstream's `makeEvent` builds: name `<object>.<hex ns>`, the object's namespace
 * (`default` when it has none), count 1, first = last timestamp = now, the source, and reporting
 * component/instance from the source.
 */
export function makeEvent(
  ref: V1ObjectReference,
  annotations: Record<string, string> | undefined,
  type: EventType,
  reason: string,
  message: string,
  source: EventSourceInfo,
  nowMs: number,
): CoreV1Event {
  const t = new Date(nowMs);
  const event: CoreV1Event = {
    metadata: { name: eventName(ref.name, nowMs), namespace: ref.namespace || 'default' },
    involvedObject: ref,
    reason,
    message,
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    type,
    source: source.host ? { component: source.component, host: source.host } : { component: source.component },
    reportingComponent: source.component,
  };
  if (annotations && Object.keys(annotations).length > 0) event.metadata.annotations = { ...annotations };
  if (source.host) event.reportingInstance = source.host;
  return event;
}

/** A recorder for `source` that passes every event to `emit`. */
export function newEventRecorder(
  source: EventSourceInfo,
  emit: (event: CoreV1Event) => void,
  clock: Clock,
  logger: Logger,
): EventRecorder {
  const generate = (
    object: EventObject,
    annotations: Record<string, string> | undefined,
    type: EventType,
    reason: string,
    message: string,
  ) => {
    let ref: V1ObjectReference;
    try {
      ref = getReference(object);
    } catch (err) {
      logger.error(err, 'Could not construct reference, will not report event', { type, reason, message });
      return;
    }
    if (type !== 'Normal' && type !== 'Warning') {
      logger.error(undefined, 'Unsupported event type', { type: String(type), reason });
      return;
    }
    emit(makeEvent(ref, annotations, type, reason, message, source, clock.now()));
  };
  return {
    event: (object, type, reason, message) => generate(object, undefined, type, reason, message),
    eventf: (object, type, reason, format, ...args) =>
      generate(object, undefined, type, reason, sprintf(format, ...args)),
    annotatedEventf: (object, annotations, type, reason, format, ...args) =>
      generate(object, annotations, type, reason, sprintf(format, ...args)),
  };
}

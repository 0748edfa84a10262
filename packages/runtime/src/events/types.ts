/**
 * Shapes of the core/v1 event recorder (client-go `tools/record`).
 */
import type { CoreV1Event, V1ObjectReference } from '@kubernetes/client-node';

/** The event types the API accepts (`v1.EventTypeNormal`, `v1.EventTypeWarning`). */
export type EventType = 'Normal' | 'Warning';

/** An object an event can be about: any Kubernetes object with metadata, or an object reference. */
export type EventObject =
  | {
      apiVersion?: string;
      kind?: string;
      metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
    }
  | V1ObjectReference;

/** The body of a PATCH that updates a repeated event: `{ count, lastTimestamp, message? }`. */
export type EventPatch = Record<string, unknown>;

/**
 * Where events are written (client-go `EventSink`). Implementations throw client-node `ApiException`s
 * for API errors; any other error counts as a transport failure and is retried.
 */
export interface EventSink {
  /** Creates `event` in `namespace` and resolves the stored event (with its resourceVersion). */
  create(namespace: string, event: CoreV1Event): Promise<CoreV1Event>;
  /** Applies a strategic merge patch to the event `name` in `namespace` and resolves the stored event. */
  patch(namespace: string, name: string, patch: EventPatch): Promise<CoreV1Event>;
}

/** Records events about objects (client-go `EventRecorder`). Calls return at once and never throw. */
export interface EventRecorder {
  /**
   * Records an event about `object`. `reason` is short and UpperCamelCase (for example `Synced`);
   * `message` is for humans. The event is written in the object's namespace (`default` for
   * cluster-scoped objects such as Nodes).
   */
  event(object: EventObject, type: EventType, reason: string, message: string): void;
  /** Like {@link event}, with the message formatted Go-style (`%v`, `%s`, `%d`, `%q`…). */
  eventf(object: EventObject, type: EventType, reason: string, format: string, ...args: unknown[]): void;
  /** Like {@link eventf}, with annotations on the event. */
  annotatedEventf(
    object: EventObject,
    annotations: Record<string, string>,
    type: EventType,
    reason: string,
    format: string,
    ...args: unknown[]
  ): void;
}

/**
 * An `EventRecorder` that keeps every event in memory, for unit tests (client-go
 * `tools/record/fake.go` `FakeRecorder`, without its channel).
 */
import type { EventObject, EventRecorder, EventType } from '@ccm-kit/runtime/events';
import { sprintf } from '@ccm-kit/runtime/internal';

/** One event a {@link RecordingEventRecorder} received. */
export interface RecordedEvent {
  /** The object (or object reference) the event is about, as passed in. */
  readonly object: EventObject;
  /** `Normal` or `Warning`. */
  readonly type: EventType;
  /** The short UpperCamelCase reason, as passed in. */
  readonly reason: string;
  /** The message; for `eventf`/`annotatedEventf`, the format rendered Go-style with the arguments. */
  readonly message: string;
  /** The annotations passed to `annotatedEventf`; `undefined` for the other calls. */
  readonly annotations?: Readonly<Record<string, string>>;
}

/**
 * Records every `event`, `eventf` and `annotatedEventf` call in {@link events}, in call order. Never throws
 * and writes nothing to an API server. It also satisfies the narrower recorder shapes of the controllers
 * (`event(ref, type, reason, message)`).
 */
export class RecordingEventRecorder implements EventRecorder {
  /** Every event received, oldest first. Tests may clear it (`events.length = 0`). */
  readonly events: RecordedEvent[] = [];

  /**
   * The events as `"<Type> <Reason> <Message>"` strings, oldest first: the format of client-go's
   * `FakeRecorder`, which upstream's controller tests compare against.
   */
  get lines(): string[] {
    return this.events.map((e) => `${e.type} ${e.reason} ${e.message}`);
  }

  /** Records `{ object, type, reason, message }`. */
  event(object: EventObject, type: EventType, reason: string, message: string): void {
    this.events.push({ object, type, reason, message });
  }

  /** Records the event with `format` rendered Go-style (`%v`, `%s`, `%d`, `%q`…) with `args`. */
  eventf(object: EventObject, type: EventType, reason: string, format: string, ...args: unknown[]): void {
    this.event(object, type, reason, sprintf(format, ...args));
  }

  /** Like {@link eventf}, also recording `annotations`. */
  annotatedEventf(
    object: EventObject,
    annotations: Record<string, string>,
    type: EventType,
    reason: string,
    format: string,
    ...args: unknown[]
  ): void {
    this.events.push({ object, type, reason, message: sprintf(format, ...args), annotations });
  }
}

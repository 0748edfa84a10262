/**
 * The app-level event recorder (component `cloud-controller-manager`), used for leader-election events:
 * logged and written to the API, as upstream's `EventBroadcaster` in `app.Run`.
 */
import { type Logger } from '@ccm-kit/runtime';
import { type ClientFactory, CoreV1Client } from '@ccm-kit/runtime/client';
import { coreV1EventSink, EventBroadcaster, type EventRecorder } from '@ccm-kit/runtime/events';

/** The recorder and how to stop it. */
export interface AppEvents {
  readonly recorder: EventRecorder;
  /** Stops recording; waits up to `flushTimeoutMs` (default: the broadcaster's) for queued events. */
  shutdown(flushTimeoutMs?: number): Promise<void>;
}

export function appEvents(clients: ClientFactory, logger: Logger): AppEvents {
  const broadcaster = new EventBroadcaster({ logger });
  broadcaster.startStructuredLogging(0, logger);
  broadcaster.startRecordingToSink(coreV1EventSink(clients.client('cloud-controller-manager', CoreV1Client)));
  return {
    recorder: broadcaster.newRecorder('cloud-controller-manager'),
    shutdown: (flushTimeoutMs) => broadcaster.shutdown(flushTimeoutMs),
  };
}

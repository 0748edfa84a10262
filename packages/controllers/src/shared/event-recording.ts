/**
 * Each controller's own event broadcaster, as upstream creates one in every controller's `Run`:
 * core/v1 Events through the controller's client (Nodes' events land in namespace `default`) plus a
 * structured log line per event. Shut down (flushing queued events) when the controller stops.
 */
import { type Logger } from '@ccm-kit/runtime';
import { coreV1EventSink, EventBroadcaster, type EventClient, type EventRecorder } from '@ccm-kit/runtime/events';
import type { ControllerStartResult } from '../contract/controller-context.js';

/** What {@link startWithEventRecorder} runs: resolves when the controller has stopped. */
export type RunController = (recorder: EventRecorder) => Promise<void>;

/**
 * Creates the broadcaster for `component`, then calls `start` with a recorder; the broadcaster is
 * flushed when the returned `done` settles, or at once if `start` throws (the error is rethrown).
 */
export async function startWithEventRecorder(
  client: EventClient,
  component: string,
  log: Logger,
  start: RunController,
): Promise<ControllerStartResult> {
  const broadcaster = new EventBroadcaster({ logger: log });
  broadcaster.startStructuredLogging(0, log);
  broadcaster.startRecordingToSink(coreV1EventSink(client));
  let done: Promise<void>;
  try {
    done = start(broadcaster.newRecorder(component));
  } catch (err) {
    await broadcaster.shutdown(0);
    throw err;
  }
  return { started: true, done: done.finally(() => broadcaster.shutdown()) };
}

/**
 * Each controller's own event broadcaster, as upstream creates one in every controller's `Run`:
 * core/v1 Events through the controller's client (Nodes' events land in namespace `default`) plus a
 * structured log line per event. Shut down (flushing queued events) when the controller stops.
 */
import { type Logger } from '@ccm-kit/runtime';
import { coreV1EventSink, EventBroadcaster, type EventClient, type EventRecorder } from '@ccm-kit/runtime/events';
import type { ControllerStartResult } from '../contract/controller-context.js';

/** What {@link startWithEventRecorder} calls: runs the controller with `recorder`; resolves when it has stopped. */
export type RunWithRecorder = (recorder: EventRecorder) => Promise<void>;

/** Settles on the next turn of the event loop, after every promise already settled has run its callbacks. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Creates the broadcaster for `component`, then calls `start` with a recorder; the broadcaster is
 * flushed when the returned `done` settles. A controller that refuses to start (`start` throws, or its promise
 * rejects before the next turn of the event loop, as `runController`'s worker-count check does) is a failed start:
 * the broadcaster is flushed at once and the error rethrown.
 */
export async function startWithEventRecorder(
  client: EventClient,
  component: string,
  log: Logger,
  start: RunWithRecorder,
): Promise<ControllerStartResult> {
  const broadcaster = new EventBroadcaster({ logger: log });
  broadcaster.startStructuredLogging(0, log);
  broadcaster.startRecordingToSink(coreV1EventSink(client));
  let done: Promise<void>;
  try {
    done = start(broadcaster.newRecorder(component));
    const refused = await Promise.race([
      done.then(
        () => undefined,
        (err: unknown) => ({ err }),
      ),
      nextTurn(),
    ]);
    if (refused !== undefined) throw refused.err;
  } catch (err) {
    await broadcaster.shutdown(0);
    throw err;
  }
  return { started: true, done: done.finally(() => broadcaster.shutdown()) };
}

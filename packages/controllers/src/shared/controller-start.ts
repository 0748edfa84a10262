/**
 * How every built-in descriptor's `init` starts its controller once it decided to: the controller's module, the
 * typed client class and the event recorder set-up are loaded by dynamic imports on the first `init`, so that a
 * process that only reads the descriptors (the app's `--help`, its flag checks) loads neither the API client and its
 * HTTP stack nor any controller. Follows upstream `app/core.go` (`start…Controller`): the controller's own client,
 * its own event broadcaster.
 */
import type { Logger } from '@ccm-kit/runtime';
import type { CoreV1Client } from '@ccm-kit/runtime/client';
import type { EventRecorder } from '@ccm-kit/runtime/events';
import type { ControllerContext, ControllerStartResult } from '../contract/controller-context.js';

/** Builds the controller on `client` with `recorder` and runs it; resolves when it has stopped. */
export type RunOnClient = (client: CoreV1Client, recorder: EventRecorder) => Promise<void>;

/** Where a controller's API writes and Events come from. */
export interface ControllerIdentity {
  /** The client name (user agent) of its API client, for example `service-controller`. */
  clientName: string;
  /** The `source.component` of its Events. */
  eventSource: string;
  /** Its logger (also the broadcaster's structured log). */
  logger: Logger;
}

/**
 * Loads the controller (`load` imports its module and answers how to run it), builds its client with
 * `ctx.clients`, and runs it with its own event recorder (`startWithEventRecorder`).
 * @throws what `load` throws, and a start the controller refuses (see `startWithEventRecorder`).
 */
export async function startController(
  ctx: ControllerContext,
  identity: ControllerIdentity,
  load: () => Promise<RunOnClient>,
): Promise<ControllerStartResult> {
  const [{ CoreV1Client }, { startWithEventRecorder }, run] = await Promise.all([
    import('@ccm-kit/runtime/client'),
    import('./event-recording.js'),
    load(),
  ]);
  const client = ctx.clients.client(identity.clientName, CoreV1Client);
  return startWithEventRecorder(client, identity.eventSource, identity.logger, (recorder) => run(client, recorder));
}

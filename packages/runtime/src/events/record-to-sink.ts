/**
 * Writing one event to a sink with client-go's retry rules (`recordToSink` / `recordEvent` in
 * `tools/record/event.go`):
 *
 * - a repeat (count > 1) is PATCHed; if the stored event is gone (404) it is created instead;
 * - success updates the correlator with the server's copy;
 * - a refusal by the lease fence (`LeaseFencedError`, a deposed leader's write guard) is final and logged at
 *   verbosity 4 only (ccm-kit; upstream's process has exited by then);
 * - an API error is final (logged; `AlreadyExists` and namespace-terminating only at verbosity 5),
 *   except 429 and 5xx, which are retried (client-go's REST client retries those itself);
 * - any other error (network) is retried, up to `maxTries` attempts in all, sleeping `intervalMs`
 *   between attempts (the first sleep is randomised in [0, intervalMs) so clients do not synchronise);
 * - once `signal` aborts (broadcaster shutdown), no further sleep happens.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { errorStatus } from '../client/errors.js';
import { isLeaseFencedError } from '../leader-election/fence.js';
import type { Logger } from '../logging.js';
import { sleep } from '../wait/sleep.js';
import type { EventCorrelator } from './correlator.js';
import type { EventPatch, EventSink } from './types.js';

/** Settings of {@link recordToSink}. */
export interface SinkWriteOptions {
  /** Attempts per event (upstream 12). */
  maxTries: number;
  /** Sleep between attempts in ms (upstream 10 000). */
  intervalMs: number;
  /** Randomness for the first sleep. */
  random: () => number;
  /** Aborted on shutdown: ends retry sleeps. */
  signal: AbortSignal;
  logger: Logger;
}

function describe(e: CoreV1Event): Record<string, unknown> {
  const o = e.involvedObject ?? {};
  return {
    event: `${e.metadata?.namespace ?? ''}/${e.metadata?.name ?? ''}`,
    object: o.namespace ? `${o.namespace}/${o.name}` : o.name,
    kind: o.kind,
    reason: e.reason,
  };
}

/** Whether an API error's `Status.details.causes` has a cause of `type` (`errors.HasStatusCause`). */
function hasStatusCause(err: unknown, type: string): boolean {
  const seen = new Set<unknown>();
  for (let e = err; typeof e === 'object' && e !== null && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    let body = (e as { body?: unknown }).body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        body = undefined;
      }
    }
    const causes = (body as { details?: { causes?: unknown } } | undefined)?.details?.causes;
    if (Array.isArray(causes) && causes.some((c) => (c as { type?: unknown } | null)?.type === type)) return true;
  }
  return false;
}

/** One attempt. Resolves true when the event was written or must be abandoned, false to retry. */
async function recordEvent(
  sink: EventSink,
  event: CoreV1Event,
  patch: EventPatch | undefined,
  correlator: EventCorrelator,
  logger: Logger,
): Promise<boolean> {
  const namespace = event.metadata?.namespace ?? 'default';
  const update = (event.count ?? 0) > 1 && patch !== undefined;
  let stored: CoreV1Event | undefined;
  let error: unknown;
  let failed = false;
  if (update) {
    try {
      stored = await sink.patch(namespace, event.metadata?.name ?? '', patch);
    } catch (err) {
      failed = true;
      error = err;
    }
  }
  if (!update || (failed && errorStatus(error)?.code === 404)) {
    failed = false;
    error = undefined;
    event.metadata = { ...event.metadata, resourceVersion: undefined };
    try {
      stored = await sink.create(namespace, event);
    } catch (err) {
      failed = true;
      error = err;
    }
  }
  if (!failed) {
    if (stored) correlator.updateState(stored);
    return true;
  }
  if (isLeaseFencedError(error)) {
    // A deposed leader's write guard refuses Events: it is about to exit and records nothing more.
    logger.v(4).info('Event not written: this replica is fenced (will not retry)', describe(event));
    return true;
  }
  const status = errorStatus(error);
  if (status?.code !== undefined && status.code !== 429 && status.code < 500) {
    if (status.reason === 'AlreadyExists' || hasStatusCause(error, 'NamespaceTerminating')) {
      logger.v(5).info('Server rejected event (will not retry!)', { ...describe(event), err: String(error) });
    } else {
      logger.error(error, 'Server rejected event (will not retry!)', describe(event));
    }
    return true;
  }
  logger.error(error, 'Unable to write event (may retry after sleeping)', describe(event));
  return false;
}

/** Correlates `event` and writes it to `sink`, retrying as described in the module comment. */
export async function recordToSink(
  sink: EventSink,
  event: CoreV1Event,
  correlator: EventCorrelator,
  options: SinkWriteOptions,
): Promise<void> {
  const result = correlator.correlate(event);
  if (result.skip) return;
  const { logger } = options;
  for (let tries = 1; ; tries++) {
    if (await recordEvent(sink, result.event, result.patch, correlator, logger)) return;
    if (tries >= options.maxTries) {
      logger.error(undefined, 'Unable to write event (retry limit exceeded!)', describe(result.event));
      return;
    }
    const delay = tries === 1 ? options.intervalMs * options.random() : options.intervalMs;
    if (!(await sleep(delay, options.signal))) {
      logger.error(undefined, 'Unable to write event (broadcaster is shut down)', describe(result.event));
      return;
    }
  }
}

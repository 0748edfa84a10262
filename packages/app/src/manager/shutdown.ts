/**
 * The manager's one ordered stop procedure (controller-runtime's `engageStopProcedure`: leader-elected
 * runnables first, then the always-on ones, each bounded): the controllers and elections stop (bounded by
 * {@link CONTROLLER_STOP_TIMEOUT_MS}), then the provider's `shutdown` hook (bounded by the provider shutdown
 * timeout), then serving, events and API clients. The same procedure cleans up after a failed start, with
 * whatever had started by then.
 */
import type { CloudProvider } from '@ccm-kit/cloud-provider';
import type { Logger } from '@ccm-kit/runtime';
import type { ManagerClients } from './clients.js';
import type { AppEvents } from './events.js';
import type { Serving } from './serving.js';

/** How long a stop waits for controllers to finish before going on anyway, in ms. */
export const CONTROLLER_STOP_TIMEOUT_MS = 10_000;

/** How long a stop waits for the provider's `shutdown` hook by default, in ms. */
export const DEFAULT_PROVIDER_SHUTDOWN_TIMEOUT_MS = 5_000;

/** The parts to stop; those not started (yet) are left out. */
export interface ManagerParts {
  /** Stops the controllers and elections (aborts their signal). */
  stopControllers?: () => void;
  /** Ends when the controllers and elections have stopped (asked after `stopControllers`). */
  controllersDone?: () => Promise<unknown>;
  cloud?: CloudProvider;
  /** Bound on the provider's `shutdown` hook, in ms (default {@link DEFAULT_PROVIDER_SHUTDOWN_TIMEOUT_MS}). */
  providerShutdownTimeoutMs?: number;
  serving?: Serving;
  events?: AppEvents;
  /** Bound on writing queued events, in ms (default: the broadcaster's; 0 after a failed start). */
  eventFlushTimeoutMs?: number;
  clients?: ManagerClients;
}

/** Stops `parts` in order. Never throws. */
export async function stopManager(parts: ManagerParts, logger: Logger): Promise<void> {
  parts.stopControllers?.();
  if (parts.controllersDone) await bounded(parts.controllersDone(), CONTROLLER_STOP_TIMEOUT_MS);
  if (parts.cloud) {
    await shutdownProvider(
      parts.cloud,
      parts.providerShutdownTimeoutMs ?? DEFAULT_PROVIDER_SHUTDOWN_TIMEOUT_MS,
      logger,
    );
  }
  await step('serving', () => parts.serving?.close(), logger);
  await step('events', () => parts.events?.shutdown(parts.eventFlushTimeoutMs), logger);
  await step('API clients', () => parts.clients?.close(), logger);
}

/**
 * Awaits `cloud.shutdown(signal)` for at most `timeoutMs`; `signal` aborts when the bound is reached. Errors
 * and a timeout are logged, never thrown.
 */
export async function shutdownProvider(cloud: CloudProvider, timeoutMs: number, logger: Logger): Promise<void> {
  if (!cloud.shutdown) return;
  const bound = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      bound.abort(new Error(`provider shutdown timed out after ${timeoutMs} ms`));
      resolve('timeout');
    }, timeoutMs);
  });
  try {
    const outcome = await Promise.race([Promise.resolve().then(() => cloud.shutdown!(bound.signal)), timedOut]);
    if (outcome === 'timeout') {
      logger.warn('The cloud provider did not finish shutting down in time; going on without it', { timeoutMs });
    }
  } catch (err) {
    logger.error(err, 'The cloud provider failed to shut down');
  } finally {
    clearTimeout(timer);
  }
}

function bounded(p: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.catch(() => {}),
    new Promise((r) => {
      timer = setTimeout(r, ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

async function step(what: string, run: () => Promise<void> | undefined, logger: Logger): Promise<void> {
  try {
    await run();
  } catch (err) {
    logger.error(err, `Failed to stop ${what}`);
  }
}

/**
 * What every cloud controller receives when the app starts it, and what it gives back.
 * Follows upstream `k8s.io/cloud-provider/app` (`ControllerContext`, `InitFunc`, `ControllerInitContext`),
 * as idiomatic TypeScript. The app (`@ccm-kit/app`) builds one {@link ControllerContext} per process and calls
 * each enabled {@link ControllerDescriptor.init} on the elected leader.
 */
import type { CloudProvider, ControllerClientBuilder, SharedInformers } from '@ccm-kit/cloud-provider';
import type { Logger } from '@ccm-kit/runtime';
import type { CloudControllerConfig } from './controller-config.js';

/** Everything a controller needs, shared by all controllers of one manager. */
export interface ControllerContext {
  /** The provider. Controllers check facet support themselves. */
  readonly cloud: CloudProvider;
  /** Per-controller API clients: `clients.client(clientName, CoreV1Api)`. */
  readonly clients: ControllerClientBuilder;
  /** Shared informers (one watch per resource across controllers); started by the app after every init. */
  readonly informers: SharedInformers;
  /** Controller settings. */
  readonly config: CloudControllerConfig;
  /** Aborts when the manager stops or loses leadership; controllers stop their loops then. */
  readonly signal: AbortSignal;
  /** The manager's logger; controllers derive a named child. */
  readonly logger: Logger;
}

/** What an init function reports. */
export interface ControllerStartResult {
  /** False when the controller chose not to start (for example its cloud facet is unsupported). */
  started: boolean;
  /** Why it did not start; logged by the app as `Skipping "<name>"`. */
  reason?: string;
  /** Resolves when the controller's loops have stopped after the context's signal aborted. */
  done?: Promise<void>;
  /** Optional health check (throws when unhealthy); the app adds a ping check otherwise. */
  healthCheck?: () => void | Promise<void>;
}

/**
 * A controller the manager can run: the four built-ins and any vendor controller.
 * Names should match `^[a-z]([-a-z]*[a-z])?$` and end in `-controller`.
 */
export interface ControllerDescriptor {
  /** Canonical name, selected with `--controllers`. */
  readonly name: string;
  /** Older names accepted by `--controllers` (for example `cloud-node`). */
  readonly aliases?: readonly string[];
  /** The client (service-account) name for its API client and user agent. */
  readonly clientName: string;
  /** True when only an explicit `--controllers=<name>` enables it (not `*`). */
  readonly disabledByDefault?: boolean;
  /**
   * Starts the controller. Returns quickly; the controller's loops run until `ctx.signal` aborts.
   * Throwing is fatal for the whole manager (as upstream's returned init errors); to skip, return `{ started: false, reason }`.
   */
  init(ctx: ControllerContext): Promise<ControllerStartResult>;
}

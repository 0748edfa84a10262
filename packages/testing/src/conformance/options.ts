/**
 * Options of the provider conformance suite ({@link describeProviderConformance}): the fixture a vendor's
 * `setup()` returns, the facets, and the time limits. Validation throws a `TypeError`/`RangeError` naming
 * the field.
 */
import { CONTROLLER_FACET_NAMES } from '@ccm-kit/cloud-provider';
import type { CloudProvider, ControllerClientBuilder, ControllerFacetName, Route } from '@ccm-kit/cloud-provider';
import type { V1Node, V1Service } from '@kubernetes/client-node';

/**
 * A part of the provider contract the suite checks: `provider` (providerName, hasClusterID), always checked, and
 * each facet a built-in controller calls (`@ccm-kit/cloud-provider`'s `CONTROLLER_FACET_NAMES`), checked when the
 * provider implements it. `clusters` is reported but has no checks (no controller calls it).
 */
export type ConformanceFacet = 'provider' | ControllerFacetName;

/** Every part, in report order: `provider`, then the facets in `CONTROLLER_FACET_NAMES` order. */
export const CONFORMANCE_FACETS: readonly ConformanceFacet[] = Object.freeze(['provider', ...CONTROLLER_FACET_NAMES]);

/** Facets whose calls a cloud outage can affect (everything but `provider`). */
export type OutageFacet = Exclude<ConformanceFacet, 'provider'>;

/**
 * What `setup()` returns: a freshly built provider and a description of the cloud's state. The suite
 * builds one fixture per check (and one more at collection time, to learn which facets exist), and
 * calls `teardown` after each.
 */
export interface ProviderFixture {
  /** The provider under test. The suite calls its `initialize` (see {@link ProviderConformanceOptions.initialize}). */
  cloud: CloudProvider;
  /**
   * A Node whose machine exists and is running. Required when the provider implements `instancesV2`,
   * `instances` or `routes` (the route target). It may carry `spec.providerID` (an initialized Node) or
   * not (a new Node, found by name).
   */
  existingNode?: V1Node;
  /** A Node whose machine does not exist. Required with `instancesV2` or `instances`. */
  missingNode?: V1Node;
  /** A Node whose machine exists but is shut down (stopped). Optional: enables the shutdown checks. */
  stoppedNode?: V1Node;
  /**
   * Makes the cloud API fail (for example every request answers 500 or 401) until {@link healCloud}.
   * Optional: enables the outage checks of the facets listed in
   * {@link ProviderConformanceOptions.outageFacets}. Requires `healCloud`.
   */
  breakCloud?: () => void | Promise<void>;
  /** Ends the outage {@link breakCloud} started. */
  healCloud?: () => void | Promise<void>;
  /**
   * The IDs (or names) of every load balancer that exists in the cloud for this cluster, as the cloud
   * itself lists them (not through the provider). Optional: enables the leak and duplicate checks.
   */
  listCloudLoadBalancers?: () => readonly string[] | Promise<readonly string[]>;
  /** Handed to `cloud.initialize`; default a builder that throws a clear error when used. */
  clientBuilder?: ControllerClientBuilder;
  /** Releases what `setup()` built (servers, temp files, timers). */
  teardown?: () => void | Promise<void>;
}

/** Time limits of the suite, all in **milliseconds**. */
export interface ConformanceTimeouts {
  /** Limit of each check (`it`), including setup and teardown. Default 30,000. */
  testMs?: number;
  /** Limit of `setup()` and of `cloud.initialize`. Default 10,000. */
  setupMs?: number;
  /** Limit of each single provider call; a call that does not settle in time fails the check. Default 10,000. */
  callMs?: number;
  /** How long `ensureLoadBalancer` is retried while it throws `RetryError` (provisioning). Default 15,000. */
  ensureMs?: number;
  /** The longest wait between two such retries; a `RetryError`'s `retryAfterMs` is capped to it. Default 250. */
  retryCapMs?: number;
  /**
   * After the abort checks, how long to keep watching for promise rejections nobody handles (work a
   * provider started for an aborted call and abandoned). Default 100.
   */
  settleMs?: number;
}

/** The resolved {@link ConformanceTimeouts}. */
export type ResolvedTimeouts = Required<ConformanceTimeouts>;

/** Defaults of {@link ConformanceTimeouts}, in milliseconds. */
export const DEFAULT_CONFORMANCE_TIMEOUTS: Readonly<ResolvedTimeouts> = Object.freeze({
  testMs: 30_000,
  setupMs: 10_000,
  callMs: 10_000,
  ensureMs: 15_000,
  retryCapMs: 250,
  settleMs: 100,
});

/** Load-balancer inputs; each function is called once per Service or node list the suite needs. */
export interface LoadBalancerConformanceOptions<F extends ProviderFixture = ProviderFixture> {
  /**
   * A new LoadBalancer Service the provider should serve (a new UID each call). `seq` counts the
   * Services of one check from 0. Default: a TCP port-80 Service `conformance-<seq>` in `default`
   * with a random UID. Register it wherever your provider reads Services (for example a fake API).
   */
  service?: (fixture: F, seq: number) => V1Service | Promise<V1Service>;
  /** The Nodes to balance over. Default `[existingNode]` (or `[]` without one). */
  nodes?: (fixture: F) => V1Node[];
}

/** Routes inputs. */
export interface RoutesConformanceOptions<F extends ProviderFixture = ProviderFixture> {
  /**
   * The route to create. Default `{ targetNode: existingNode's name, destinationCIDR: '10.244.250.0/24' }`.
   * Its destination must lie inside your cluster CIDR if `listRoutes` filters by it.
   */
  route?: (fixture: F) => Route;
}

/** Options of {@link describeProviderConformance} and {@link planProviderConformance}. */
export interface ProviderConformanceOptions<F extends ProviderFixture = ProviderFixture> {
  /** The provider's name in test titles (for example `mycloud`). */
  name: string;
  /** Builds a fresh provider and its fixture; called once per check and once at collection. */
  setup: () => F | Promise<F>;
  /** `clusterName` passed to load-balancer and route calls. Default `kubernetes` (upstream's `--cluster-name`). */
  clusterName?: string;
  /**
   * Call `cloud.initialize(clientBuilder, signal)` after `setup()`, as the manager does before any
   * controller runs (the signal aborts at teardown). Default true.
   */
  initialize?: boolean;
  /**
   * The provider rejects calls whose AbortSignal has aborted (the contract of `@ccm-kit/cloud-provider`:
   * every cloud call takes an optional signal and must stop and reject when it aborts). Default true:
   * the abort checks run. `false` declares that it does not, and the report says so.
   */
  abortSignals?: boolean;
  /**
   * The facets `breakCloud` makes fail. Default: every implemented facet. A cloud whose instance data
   * is local (a file) but whose load balancers call an API lists only `['loadBalancer']`.
   */
  outageFacets?: readonly OutageFacet[];
  /**
   * The facets the provider is expected to implement. When given, a check fails unless the provider
   * implements exactly these (catching a facet that silently went missing). `provider` is implied.
   */
  facets?: readonly ConformanceFacet[];
  /**
   * For a provider under construction: a check that fails because a provider method threw
   * `NotImplementedError` (a stub) is reported as pending — vitest's skip with the note
   * `pending: <method> not implemented` — instead of as a failure. Never counted as a pass. Default false.
   */
  pendingNotImplemented?: boolean;
  /** Options of the LoadBalancer checks; required when the provider implements the LoadBalancer facet. */
  loadBalancer?: LoadBalancerConformanceOptions<F>;
  /** Options of the Routes checks; required when the provider implements the Routes facet. */
  routes?: RoutesConformanceOptions<F>;
  /** Time limits of the checks (defaults in {@link ConformanceTimeouts}). */
  timeouts?: ConformanceTimeouts;
}

const OUTAGE_FACETS: ReadonlySet<string> = new Set(CONFORMANCE_FACETS.filter((f) => f !== 'provider'));
const FACETS: ReadonlySet<string> = new Set(CONFORMANCE_FACETS);

function checkFunction(value: unknown, field: string, required: boolean): void {
  if (value === undefined && !required) return;
  if (typeof value !== 'function') throw new TypeError(`${field} must be a function`);
}

function checkFacetList(value: unknown, field: string, allowed: ReadonlySet<string>): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) throw new TypeError(`${field} must be an array of facet names`);
  for (const f of value) {
    if (typeof f !== 'string' || !allowed.has(f)) {
      throw new TypeError(`${field}: unknown facet ${JSON.stringify(f)} (one of ${[...allowed].join(', ')})`);
    }
  }
}

/**
 * Validates the options and resolves the time limits.
 * @throws TypeError/RangeError naming the bad field (prefixed `describeProviderConformance: `).
 */
export function resolveOptions<F extends ProviderFixture>(
  options: ProviderConformanceOptions<F>,
): { options: ProviderConformanceOptions<F>; timeouts: ResolvedTimeouts; clusterName: string } {
  try {
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
    if (typeof options.name !== 'string' || options.name.trim() === '') {
      throw new TypeError('name must be a non-empty string');
    }
    checkFunction(options.setup, 'setup', true);
    if (options.clusterName !== undefined && (typeof options.clusterName !== 'string' || !options.clusterName)) {
      throw new TypeError('clusterName must be a non-empty string');
    }
    for (const key of ['initialize', 'abortSignals'] as const) {
      if (options[key] !== undefined && typeof options[key] !== 'boolean') {
        throw new TypeError(`${key} must be a boolean`);
      }
    }
    checkFacetList(options.outageFacets, 'outageFacets', OUTAGE_FACETS);
    checkFacetList(options.facets, 'facets', FACETS);
    checkFunction(options.loadBalancer?.service, 'loadBalancer.service', false);
    checkFunction(options.loadBalancer?.nodes, 'loadBalancer.nodes', false);
    checkFunction(options.routes?.route, 'routes.route', false);
    const timeouts: ResolvedTimeouts = { ...DEFAULT_CONFORMANCE_TIMEOUTS };
    for (const [key, value] of Object.entries(options.timeouts ?? {})) {
      if (!(key in DEFAULT_CONFORMANCE_TIMEOUTS)) throw new TypeError(`timeouts.${key}: unknown field`);
      if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
        throw new RangeError(`timeouts.${key} must be a positive number of milliseconds, got ${String(value)}`);
      }
      timeouts[key as keyof ResolvedTimeouts] = value;
    }
    return { options, timeouts, clusterName: options.clusterName ?? 'kubernetes' };
  } catch (err) {
    (err as Error).message = `describeProviderConformance: ${(err as Error).message}`;
    throw err;
  }
}

/**
 * The definition of one conformance check and what the planner knows when it chooses checks.
 */
import type { LoadBalancerCapabilities } from '@ccm-kit/cloud-provider';
import type { CheckContext } from './context.js';
import type { ConformanceFacet, OutageFacet } from './options.js';

/** What the suite learned from one fixture built at collection time. */
export interface ProviderProbe {
  /** `providerName()` of the probed provider. */
  readonly providerName: string;
  /** The implemented checked facets (always including `provider`). */
  readonly facets: ReadonlySet<ConformanceFacet>;
  /** `clusters()` returns a facet (reported, not checked). */
  readonly clusters: boolean;
  /** The facets `breakCloud` affects (empty without `breakCloud`). */
  readonly outage: ReadonlySet<OutageFacet>;
  /** The fixture has a `stoppedNode`. */
  readonly stoppedNode: boolean;
  /** `missingNode` carries a `spec.providerID`. */
  readonly missingProviderID: boolean;
  /** The fixture has `listCloudLoadBalancers`. */
  readonly listsLoadBalancers: boolean;
  /** The LoadBalancer facet implements the optional `listLoadBalancers`. */
  readonly listsOwnedLoadBalancers: boolean;
  /** The provider honours AbortSignals (option `abortSignals`, default true). */
  readonly abortSignals: boolean;
  /** The InstancesV2 facet has the optional batch read `listInstanceStates`. */
  readonly batchReads: boolean;
  /** The LoadBalancer facet's `capabilities` declaration, when it has one. */
  readonly lbCapabilities: LoadBalancerCapabilities | undefined;
}

/** One check: an id (`<facet>/<slug>`), a title (the test name) and its body. */
export interface CheckSpec {
  readonly id: string;
  readonly facet: ConformanceFacet;
  readonly title: string;
  /** Keep watching for unhandled rejections for `timeouts.settleMs` after teardown (abandoned work). */
  readonly settle?: boolean;
  run(ctx: CheckContext): Promise<void>;
}

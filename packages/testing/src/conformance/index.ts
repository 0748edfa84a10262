export type { CheckContext } from './context.js';
export { DEFAULT_ROUTE_CIDR, defaultConformanceService } from './context.js';
export {
  CONFORMANCE_FACETS,
  type ConformanceFacet,
  type ConformanceTimeouts,
  DEFAULT_CONFORMANCE_TIMEOUTS,
  type LoadBalancerConformanceOptions,
  type OutageFacet,
  type ProviderConformanceOptions,
  type ProviderFixture,
  type RoutesConformanceOptions,
} from './options.js';
export {
  type ConformanceCheck,
  type ConformanceCoverage,
  type ConformancePlan,
  formatCoverage,
  planProviderConformance,
} from './plan.js';
export { ConformanceViolation } from './violation.js';
export { type StubTracker, trackStubs } from './pending.js';

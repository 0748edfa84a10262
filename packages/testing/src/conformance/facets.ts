/**
 * Which facets a provider implements. A facet is implemented when its accessor exists and returns an object
 * (upstream's `(iface, true)`; `@ccm-kit/cloud-provider`'s `facetOf`).
 */
import { type CloudProvider, CONTROLLER_FACET_NAMES, facetOf } from '@ccm-kit/cloud-provider';
import type { ConformanceFacet } from './options.js';

/** The checked facets `cloud` implements, `provider` first, in {@link CONFORMANCE_FACETS} order. */
export function implementedFacets(cloud: CloudProvider): ConformanceFacet[] {
  return ['provider', ...CONTROLLER_FACET_NAMES.filter((f) => facetOf(cloud, f) !== undefined)];
}

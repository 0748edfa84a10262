/**
 * Which facets a provider implements, and the checked accessors the checks use.
 * A facet is implemented when its accessor exists and returns an object (upstream's `(iface, true)`).
 */
import type {
  CloudProvider,
  Clusters,
  Instances,
  InstancesV2,
  LoadBalancer,
  Routes,
  Zones,
} from '@ccm-kit/cloud-provider';
import type { ConformanceFacet } from './options.js';

/** The interface behind each facet accessor. */
export interface FacetInterfaces {
  instancesV2: InstancesV2;
  instances: Instances;
  zones: Zones;
  loadBalancer: LoadBalancer;
  routes: Routes;
  clusters: Clusters;
}

/** The accessor names of {@link FacetInterfaces}. */
export type FacetAccessor = keyof FacetInterfaces;

/** The facet object `cloud[accessor]()` returns, or `undefined` when the facet is not implemented. */
export function facetOf<K extends FacetAccessor>(cloud: CloudProvider, accessor: K): FacetInterfaces[K] | undefined {
  const get = cloud[accessor] as (() => FacetInterfaces[K] | undefined) | undefined;
  if (typeof get !== 'function') return undefined;
  const facet = get.call(cloud);
  return facet === undefined || facet === null ? undefined : facet;
}

/** The checked facets `cloud` implements, `provider` first, in {@link CONFORMANCE_FACETS} order. */
export function implementedFacets(cloud: CloudProvider): ConformanceFacet[] {
  const out: ConformanceFacet[] = ['provider'];
  for (const accessor of ['instancesV2', 'instances', 'zones', 'loadBalancer', 'routes'] as const) {
    if (facetOf(cloud, accessor) !== undefined) out.push(accessor);
  }
  return out;
}

/**
 * The one list of `CloudProvider`'s facets: what everything that enumerates facets reads (the app's lease fence
 * and cloud budget, the scaffolder's `--facets`, the conformance suite's facets). Each facet is named by its
 * accessor on `CloudProvider`, with its Go interface name (upstream `cloud.go`), whether a built-in controller
 * calls it, and every method of its interface, each marked as a cloud call or a local computation.
 *
 * The types make the list complete: a facet accessor or a facet method missing here does not compile.
 */
import type { CloudProvider, Clusters, Instances, InstancesV2, LoadBalancer, Routes, Zones } from './cloud.js';

/** The interface behind each facet accessor of `CloudProvider`. */
export interface FacetInterfaces {
  /** `CloudProvider.instancesV2()`. */
  instancesV2: InstancesV2;
  /** `CloudProvider.instances()`. */
  instances: Instances;
  /** `CloudProvider.zones()`. */
  zones: Zones;
  /** `CloudProvider.loadBalancer()`. */
  loadBalancer: LoadBalancer;
  /** `CloudProvider.routes()`. */
  routes: Routes;
  /** `CloudProvider.clusters()`. */
  clusters: Clusters;
}

/** A facet accessor of `CloudProvider` (`instancesV2`, `loadBalancer`, …). */
export type FacetName = keyof FacetInterfaces;

/** The names of the methods of `T` (optional ones included), not of its other members (`capabilities`). */
export type FacetMethodName<T> = {
  [M in keyof T]-?: NonNullable<T[M]> extends (...args: never[]) => unknown ? M : never;
}[keyof T] &
  string;

/**
 * What a facet method does: `'cloud'` calls the cloud (fenced and charged to the budget); `'local'` computes
 * from its arguments alone (`getLoadBalancerName`).
 */
export type FacetMethodKind = 'cloud' | 'local';

/** One facet of {@link FACETS}. */
export interface FacetDescription<T> {
  /** The Go interface name (`LoadBalancer`): the first part of a cloud call's span name. */
  readonly interfaceName: string;
  /** False for a facet no built-in controller calls (`clusters`): not scaffolded and not checked. */
  readonly controllersCall: boolean;
  /** Every method of the facet's interface and what it does. */
  readonly methods: Readonly<Record<FacetMethodName<T>, FacetMethodKind>>;
}

/** Every facet, in the order providers are read (InstancesV2 before Instances and Zones). */
export const FACETS = Object.freeze({
  instancesV2: {
    interfaceName: 'InstancesV2',
    controllersCall: true,
    methods: {
      instanceExists: 'cloud',
      instanceShutdown: 'cloud',
      instanceMetadata: 'cloud',
      listInstanceStates: 'cloud',
    },
  },
  instances: {
    interfaceName: 'Instances',
    controllersCall: true,
    methods: {
      nodeAddresses: 'cloud',
      nodeAddressesByProviderID: 'cloud',
      instanceID: 'cloud',
      instanceType: 'cloud',
      instanceTypeByProviderID: 'cloud',
      addSSHKeyToAllInstances: 'cloud',
      currentNodeName: 'cloud',
      instanceExistsByProviderID: 'cloud',
      instanceShutdownByProviderID: 'cloud',
    },
  },
  zones: {
    interfaceName: 'Zones',
    controllersCall: true,
    methods: { getZone: 'cloud', getZoneByProviderID: 'cloud', getZoneByNodeName: 'cloud' },
  },
  loadBalancer: {
    interfaceName: 'LoadBalancer',
    controllersCall: true,
    methods: {
      getLoadBalancer: 'cloud',
      getLoadBalancerName: 'local',
      ensureLoadBalancer: 'cloud',
      updateLoadBalancer: 'cloud',
      ensureLoadBalancerDeleted: 'cloud',
      listLoadBalancers: 'cloud',
      loadBalancerGroup: 'local',
    },
  },
  routes: {
    interfaceName: 'Routes',
    controllersCall: true,
    methods: { listRoutes: 'cloud', createRoute: 'cloud', deleteRoute: 'cloud' },
  },
  clusters: {
    interfaceName: 'Clusters',
    controllersCall: false,
    methods: { listClusters: 'cloud', master: 'cloud' },
  },
} as const satisfies { readonly [K in FacetName]: FacetDescription<FacetInterfaces[K]> });

/** The facet names of {@link FACETS}, in its order. */
export const FACET_NAMES: readonly FacetName[] = Object.freeze(Object.keys(FACETS) as FacetName[]);

/** A facet a built-in controller calls (`controllersCall`): every facet but `clusters`. */
export type ControllerFacetName = {
  [K in FacetName]: (typeof FACETS)[K]['controllersCall'] extends true ? K : never;
}[FacetName];

/** The names of {@link ControllerFacetName}, in {@link FACETS} order. */
export const CONTROLLER_FACET_NAMES: readonly ControllerFacetName[] = Object.freeze(
  FACET_NAMES.filter((f): f is ControllerFacetName => FACETS[f].controllersCall),
);

/** The facet object `cloud[name]()` returns, or `undefined` when the provider does not implement the facet. */
export function facetOf<K extends FacetName>(cloud: CloudProvider, name: K): FacetInterfaces[K] | undefined {
  const get = cloud[name] as (() => FacetInterfaces[K] | null | undefined) | undefined;
  if (typeof get !== 'function') return undefined;
  return get.call(cloud) ?? undefined;
}

/** The members of `CloudProvider` that are not facet accessors. */
type ProviderMember = 'initialize' | 'providerName' | 'hasClusterID' | 'shutdown';
/** Compiles only when `T` is `never`. */
type Nothing<T extends never> = T;
// A facet accessor added to CloudProvider must be added to FacetInterfaces and FACETS: this fails to compile before.
type _EveryAccessorListed = Nothing<Exclude<keyof CloudProvider, FacetName | ProviderMember>>;

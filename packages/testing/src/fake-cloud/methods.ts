/**
 * The cloud calls of {@link FakeCloud} that can be counted, logged, delayed, failed and throttled.
 * Names are the TypeScript method names of the facet interfaces in `@ccm-kit/cloud-provider`
 * (`list` is the fake's own machine listing, upstream `fake.Cloud.List`).
 */
export const FAKE_CLOUD_METHODS = [
  // LoadBalancer
  'getLoadBalancer',
  'ensureLoadBalancer',
  'updateLoadBalancer',
  'ensureLoadBalancerDeleted',
  'listLoadBalancers',
  // Instances (v1)
  'nodeAddresses',
  'nodeAddressesByProviderID',
  'instanceID',
  'instanceType',
  'instanceTypeByProviderID',
  'addSSHKeyToAllInstances',
  'currentNodeName',
  'instanceExistsByProviderID',
  'instanceShutdownByProviderID',
  // InstancesV2
  'instanceExists',
  'instanceShutdown',
  'instanceMetadata',
  'listInstanceStates',
  // Zones
  'getZone',
  'getZoneByProviderID',
  'getZoneByNodeName',
  // Clusters
  'listClusters',
  'master',
  // Routes
  'listRoutes',
  'createRoute',
  'deleteRoute',
  // PVLabeler
  'getLabelsForVolume',
  // fake only
  'list',
] as const;

/** One cloud call of {@link FakeCloud}; see {@link FAKE_CLOUD_METHODS}. */
export type FakeCloudMethod = (typeof FAKE_CLOUD_METHODS)[number];

const known: ReadonlySet<string> = new Set(FAKE_CLOUD_METHODS);

/** True when `name` is one of {@link FAKE_CLOUD_METHODS}. */
export function isFakeCloudMethod(name: string): name is FakeCloudMethod {
  return known.has(name);
}

/**
 * Which methods a fault policy applies to: one method, a list of methods, or `'*'` for all of them.
 */
export type MethodSelector = FakeCloudMethod | readonly FakeCloudMethod[] | '*';

/**
 * Resolves a selector to its methods (`'*'` stays `'*'`).
 * @throws TypeError naming `field` when a method name is unknown or the list is empty.
 */
export function resolveSelector(selector: MethodSelector, field: string): readonly FakeCloudMethod[] | '*' {
  if (selector === '*') return '*';
  const list: readonly string[] = typeof selector === 'string' ? [selector] : selector;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(`${field}: expected a method name, a non-empty list of method names, or '*'`);
  }
  for (const name of list) {
    if (typeof name !== 'string' || !isFakeCloudMethod(name)) {
      throw new TypeError(`${field}: unknown FakeCloud method ${JSON.stringify(name)}`);
    }
  }
  return list as readonly FakeCloudMethod[];
}

/**
 * `@ccm-kit/cloud-provider`: the contract a provider implements (`CloudProvider` and its facets), its
 * errors, the provider registry, the node/service helpers and the well-known names, as in
 * `k8s.io/cloud-provider`. Every name here is public API, covered by semver; the package README lists
 * them by group. Internals for sibling packages and tests live in `@ccm-kit/cloud-provider/internal`.
 */
export {
  isInformerUser,
  isPVLabeler,
  type ControllerClientBuilder,
  type CloudProvider,
  type InformerUser,
  type PVLabeler,
  type Clusters,
  type LoadBalancer,
  type Instances,
  type InstancesV2,
  type InstanceMetadata,
  type InstanceState,
  type InstanceStatePage,
  type Zone,
  type Zones,
  type Route,
  type Routes,
  type CloudProviderFactory,
} from './cloud.js';
export {
  CONTROLLER_FACET_NAMES,
  FACET_NAMES,
  FACETS,
  facetOf,
  type ControllerFacetName,
  type FacetDescription,
  type FacetInterfaces,
  type FacetMethodKind,
  type FacetMethodName,
  type FacetName,
} from './facets.js';
export {
  validateLoadBalancerCapabilities,
  type LoadBalancerCapabilities,
  type LoadBalancerIPMode,
  type ServiceIPFamily,
  type ServicePortProtocol,
} from './load-balancer-capabilities.js';
export {
  isMalformedLoadBalancerRecord,
  type ListedLoadBalancer,
  type ListLoadBalancersOptions,
  type LoadBalancerListPage,
  type MalformedLoadBalancerRecord,
  type OwnedLoadBalancer,
  type RecordedService,
} from './load-balancer-listing.js';
export {
  findError,
  InstanceNotFoundError,
  NotImplementedError,
  ImplementedElsewhereError,
  DiskNotFoundError,
  RetryError,
} from './errors.js';
export {
  nodeClientFromCoreV1Api,
  serviceStatusClientFromCoreV1Api,
  type NodeClient,
  type ServiceStatusClient,
  type NodeApi,
  type ServiceStatusApi,
} from './helpers/clients.js';
export { defaultLoadBalancerName } from './helpers/load-balancer-name.js';
export { addToNodeAddresses, parseNodeIPAnnotation, getNodeAddressesFromNodeIP } from './helpers/node-addresses.js';
export { addOrUpdateLabelsOnNode, type AddOrUpdateLabelsOptions } from './helpers/node-labels.js';
export {
  taintMatches,
  taintsEqual,
  taintExists,
  deleteTaint,
  removeTaint,
  addOrUpdateTaint,
  addOrUpdateTaintOnNode,
  removeTaintOffNode,
} from './helpers/node-taints.js';
export { getInstanceProviderID } from './helpers/provider-id.js';
export {
  isConflictError,
  retryOnConflict,
  type ConflictBackoff,
  type RetryOnConflictOptions,
} from './helpers/retry-on-conflict.js';
export { hasLBFinalizer, addLBFinalizer, removeLBFinalizer } from './helpers/service-finalizer.js';
export { patchService } from './helpers/service-patch.js';
export {
  getLoadBalancerSourceRanges,
  isAllowAll,
  DEFAULT_LOAD_BALANCER_SOURCE_RANGES,
} from './helpers/service-source-ranges.js';
export { loadBalancerStatusEqual } from './helpers/service-status.js';
export {
  requestsOnlyLocalTraffic,
  needsHealthCheck,
  getServiceHealthCheckPathPort,
} from './helpers/service-traffic.js';
export {
  type Lister,
  type DeletedFinalStateUnknown,
  type InformerEventHandler,
  type Informer,
  type SharedInformers,
} from './informers.js';
export {
  parseIP,
  parseCIDR,
  cidrContains,
  formatIP,
  formatCIDR,
  ipEqual,
  isUnspecified,
  tryParseCIDR,
  type IPAddress,
  type CIDR,
  CIDRParseError,
} from './net.js';
export {
  registerCloudProvider,
  unregisterCloudProvider,
  isCloudProvider,
  isExternal,
  registeredCloudProviders,
  getCloudProvider,
  initCloudProvider,
} from './registry.js';
export {
  TAINT_EXTERNAL_CLOUD_PROVIDER,
  TAINT_NODE_SHUTDOWN,
  TAINT_TO_BE_DELETED_BY_CLUSTER_AUTOSCALER,
  ANNOTATION_ALPHA_PROVIDED_IP_ADDR,
  ANNOTATION_LOAD_BALANCER_SOURCE_RANGES,
  LOAD_BALANCER_CLEANUP_FINALIZER,
  LABEL_NODE_EXCLUDE_BALANCERS,
  LABEL_TOPOLOGY_ZONE,
  LABEL_TOPOLOGY_REGION,
  LABEL_INSTANCE_TYPE_STABLE,
  LABEL_FAILURE_DOMAIN_BETA_ZONE,
  LABEL_FAILURE_DOMAIN_BETA_REGION,
  LABEL_INSTANCE_TYPE,
  NODE_CONDITION_NETWORK_UNAVAILABLE,
  NETWORK_UNAVAILABLE_REASON_ROUTE_CREATED,
  NETWORK_UNAVAILABLE_MESSAGE_ROUTE_CREATED,
  NETWORK_UNAVAILABLE_REASON_NO_ROUTE_CREATED,
  NETWORK_UNAVAILABLE_MESSAGE_NO_ROUTE_CREATED,
  CLOUD_CONTROLLER_MANAGER_PORT,
  CLOUD_CONTROLLER_MANAGER_WEBHOOK_PORT,
  EXTERNAL_CLOUD_PROVIDER_NAME,
  CLOUD_NODE_CONTROLLER,
  SERVICE_LB_CONTROLLER,
  NODE_ROUTE_CONTROLLER,
  CLOUD_NODE_LIFECYCLE_CONTROLLER,
  CLOUD_CONTROLLER_NAMES,
  CLOUD_CONTROLLER_ALIASES,
  NODE_CONTROLLER_CLIENT_NAME,
  SERVICE_CONTROLLER_CLIENT_NAME,
  ROUTE_CONTROLLER_CLIENT_NAME,
  CLOUD_NODE_CONTROLLER_EVENT_SOURCE,
  CLOUD_NODE_LIFECYCLE_CONTROLLER_EVENT_SOURCE,
  SERVICE_CONTROLLER_EVENT_SOURCE,
  ROUTE_CONTROLLER_EVENT_SOURCE,
  CLOUD_CONTROLLER_MANAGER_EVENT_SOURCE,
  LEADER_ELECTION_LEASE_NAME,
  LEADER_ELECTION_LEASE_NAMESPACE,
  CONFIGZ_NAME,
  CONFIGZ_KIND,
  CONFIGZ_VERSION,
  PROVISIONED_VOLUME_NAME,
  LABEL_MULTI_ZONE_DELIMITER,
  STRATEGIC_MERGE_PATCH_CONTENT_TYPE,
  MERGE_PATCH_CONTENT_TYPE,
} from './well-known.js';
export {
  defineAnnotations,
  type AnnotationSetOptions,
  type AnnotationParseResult,
  type AnnotationDefaults,
  type AnnotationSet,
  type AnnotationProblem,
  InvalidAnnotationError,
  renderAnnotationTable,
  type StringAnnotation,
  type BooleanAnnotation,
  type IntegerAnnotation,
  type DurationAnnotation,
  type EnumAnnotation,
  type CIDRListAnnotation,
  type IPAnnotation,
  type IPListAnnotation,
  type MapAnnotation,
  type AnnotationSpec,
  type AnnotationValue,
  type AnnotationValues,
  type AnnotationSpecBase,
} from './annotations/index.js';
export { parseGoDuration } from './helpers/go-duration.js';

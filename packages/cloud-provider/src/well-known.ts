/**
 * Well-known strings of the cloud-controller-manager, exactly as upstream spells them
 * (upstream `k8s.io/cloud-provider api/well_known_*.go`). The cluster must not be able to tell ccm-kit from upstream,
 * so every label, taint, annotation, finalizer, condition and name lives here once.
 *
 * Follows upstream `k8s.io/cloud-provider/api/well_known_*.go`, `k8s.io/api/core/v1/well_known_*.go`,
 * `service/helpers/helper.go`, `names/controller_names.go`, `options/options.go` and `volume/constants.go`.
 */

// ---- Taints -------------------------------------------------------------------------------------

/** Set by the kubelet with `--cloud-provider=external`; removed by the cloud-node controller once initialized. */
export const TAINT_EXTERNAL_CLOUD_PROVIDER = 'node.cloudprovider.kubernetes.io/uninitialized';
/** Set and removed by the node-lifecycle controller; always effect `NoSchedule` with an empty value. */
export const TAINT_NODE_SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';
/** The cluster autoscaler's taint key; the service controller excludes such nodes (matched by key only). */
export const TAINT_TO_BE_DELETED_BY_CLUSTER_AUTOSCALER = 'ToBeDeletedByClusterAutoscaler';

// ---- Annotations --------------------------------------------------------------------------------

/** The kubelet's `--node-ip` value: one IP, or a dual-stack pair separated by `,`. */
export const ANNOTATION_ALPHA_PROVIDED_IP_ADDR = 'alpha.kubernetes.io/provided-node-ip';
/** Service source ranges (comma-separated CIDRs), used when `spec.loadBalancerSourceRanges` is empty. */
export const ANNOTATION_LOAD_BALANCER_SOURCE_RANGES = 'service.beta.kubernetes.io/load-balancer-source-ranges';

// ---- Finalizers ---------------------------------------------------------------------------------

/** The service controller's finalizer on Services that have (or had) a cloud load balancer. */
export const LOAD_BALANCER_CLEANUP_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';

// ---- Labels -------------------------------------------------------------------------------------

/** Nodes with this label (parsed as a Go bool; unparsable means true) are left out of load balancers. */
export const LABEL_NODE_EXCLUDE_BALANCERS = 'node.kubernetes.io/exclude-from-external-load-balancers';
/** GA zone label. */
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';
/** GA region label. */
export const LABEL_TOPOLOGY_REGION = 'topology.kubernetes.io/region';
/** GA instance-type label. */
export const LABEL_INSTANCE_TYPE_STABLE = 'node.kubernetes.io/instance-type';
/** Beta (deprecated) zone label; still written, paired with {@link LABEL_TOPOLOGY_ZONE}. */
export const LABEL_FAILURE_DOMAIN_BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
/** Beta (deprecated) region label; still written, paired with {@link LABEL_TOPOLOGY_REGION}. */
export const LABEL_FAILURE_DOMAIN_BETA_REGION = 'failure-domain.beta.kubernetes.io/region';
/** Beta (deprecated) instance-type label; still written, paired with {@link LABEL_INSTANCE_TYPE_STABLE}. */
export const LABEL_INSTANCE_TYPE = 'beta.kubernetes.io/instance-type';

// ---- Node condition written by the route controller ---------------------------------------------

/** Node condition type set by the route controller. */
export const NODE_CONDITION_NETWORK_UNAVAILABLE = 'NetworkUnavailable';
/** Reason when the route exists (condition status `False`). */
export const NETWORK_UNAVAILABLE_REASON_ROUTE_CREATED = 'RouteCreated';
/** Message when the route exists. */
export const NETWORK_UNAVAILABLE_MESSAGE_ROUTE_CREATED = 'RouteController created a route';
/** Reason when no route exists (condition status `True`). */
export const NETWORK_UNAVAILABLE_REASON_NO_ROUTE_CREATED = 'NoRouteCreated';
/** Message when no route exists. */
export const NETWORK_UNAVAILABLE_MESSAGE_NO_ROUTE_CREATED = 'RouteController failed to create a route';

// ---- Ports --------------------------------------------------------------------------------------

/** Default secure serving port (`--secure-port`) of the cloud-controller-manager. */
export const CLOUD_CONTROLLER_MANAGER_PORT = 10258;
/** Default webhook serving port (`--webhook-secure-port`). */
export const CLOUD_CONTROLLER_MANAGER_WEBHOOK_PORT = 10260;

// ---- Provider names ------------------------------------------------------------------------------

/** The `--cloud-provider` value meaning "an external cloud-controller-manager runs the cloud" (case-sensitive). */
export const EXTERNAL_CLOUD_PROVIDER_NAME = 'external';

// ---- Controller names ----------------------------------------------------------------------------

/** Canonical name of the cloud-node controller. */
export const CLOUD_NODE_CONTROLLER = 'cloud-node-controller';
/** Canonical name of the service load-balancer controller. */
export const SERVICE_LB_CONTROLLER = 'service-lb-controller';
/** Canonical name of the node-route controller. */
export const NODE_ROUTE_CONTROLLER = 'node-route-controller';
/** Canonical name of the cloud-node-lifecycle controller. */
export const CLOUD_NODE_LIFECYCLE_CONTROLLER = 'cloud-node-lifecycle-controller';

/** The four canonical controller names, in upstream's declaration order. */
export const CLOUD_CONTROLLER_NAMES: readonly string[] = Object.freeze([
  CLOUD_NODE_CONTROLLER,
  SERVICE_LB_CONTROLLER,
  NODE_ROUTE_CONTROLLER,
  CLOUD_NODE_LIFECYCLE_CONTROLLER,
]);

/**
 * Legacy controller name → canonical name, accepted by `--controllers`. The legacy names are also the
 * `name` label of `running_managed_controllers`.
 */
export const CLOUD_CONTROLLER_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  'cloud-node': CLOUD_NODE_CONTROLLER,
  service: SERVICE_LB_CONTROLLER,
  route: NODE_ROUTE_CONTROLLER,
  'cloud-node-lifecycle': CLOUD_NODE_LIFECYCLE_CONTROLLER,
});

// ---- Client (service-account) names --------------------------------------------------------------

/** Client name of the cloud-node and cloud-node-lifecycle controllers. */
export const NODE_CONTROLLER_CLIENT_NAME = 'node-controller';
/** Client name of the service load-balancer controller. */
export const SERVICE_CONTROLLER_CLIENT_NAME = 'service-controller';
/** Client name of the node-route controller. */
export const ROUTE_CONTROLLER_CLIENT_NAME = 'route-controller';

// ---- Event sources (the `source.component` of recorded events) -----------------------------------

/** Event source of the cloud-node controller. */
export const CLOUD_NODE_CONTROLLER_EVENT_SOURCE = 'cloud-node-controller';
/** Event source of the cloud-node-lifecycle controller. */
export const CLOUD_NODE_LIFECYCLE_CONTROLLER_EVENT_SOURCE = 'cloud-node-lifecycle-controller';
/** Event source of the service load-balancer controller. */
export const SERVICE_CONTROLLER_EVENT_SOURCE = 'service-controller';
/** Event source of the route controller (with an underscore, as upstream). */
export const ROUTE_CONTROLLER_EVENT_SOURCE = 'route_controller';
/** Event source of the app-level recorder. */
export const CLOUD_CONTROLLER_MANAGER_EVENT_SOURCE = 'cloud-controller-manager';

// ---- Leader election and configz -----------------------------------------------------------------

/** Default leader-election Lease name (`--leader-elect-resource-name`). */
export const LEADER_ELECTION_LEASE_NAME = 'cloud-controller-manager';
/** Default leader-election Lease namespace (`--leader-elect-resource-namespace`). */
export const LEADER_ELECTION_LEASE_NAMESPACE = 'kube-system';
/** configz registration name and API group of the component configuration. */
export const CONFIGZ_NAME = 'cloudcontrollermanager.config.k8s.io';
/** Kind of the component configuration served on `/configz`. */
export const CONFIGZ_KIND = 'CloudControllerManagerConfiguration';
/** Version of the component configuration served on `/configz`. */
export const CONFIGZ_VERSION = 'v1alpha1';

// ---- Volumes -------------------------------------------------------------------------------------

/** Placeholder PersistentVolume name used while provisioning (`volume.ProvisionedVolumeName`). */
export const PROVISIONED_VOLUME_NAME = 'placeholder-for-provisioning';
/** Separator of multiple zones in one zone label value (`volume.LabelMultiZoneDelimiter`). */
export const LABEL_MULTI_ZONE_DELIMITER = '__';

// ---- PATCH content types (client-node's PatchStrategy values) -----------------------------------

/** Content type of a strategic merge patch. */
export const STRATEGIC_MERGE_PATCH_CONTENT_TYPE = 'application/strategic-merge-patch+json';
/** Content type of a JSON merge patch (RFC 7386). */
export const MERGE_PATCH_CONTENT_TYPE = 'application/merge-patch+json';

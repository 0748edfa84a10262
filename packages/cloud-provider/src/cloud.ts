/**
 * The cloud-provider contract: the interfaces a vendor implements.
 *
 * Follows upstream `k8s.io/cloud-provider/cloud.go`, as idiomatic TypeScript:
 * - Every cloud call is `async` and takes an optional `AbortSignal` last; implementations should
 *   stop work and reject when it aborts.
 * - A facet the cloud does not support is absent: its accessor is missing or returns `undefined`
 *   (replacing Go's `(value, bool)`); controllers never call into an unsupported facet.
 * - "Does not exist" is `undefined`, not an error.
 * - Sentinel errors are classes (see `errors.ts`), checked with `instanceof` or `findError`.
 * - Implementations must treat the `V1Node`/`V1Service` objects they receive as read-only.
 */
import type {
  KubeConfig,
  V1LoadBalancerStatus,
  V1Node,
  V1NodeAddress,
  V1PersistentVolume,
  V1Service,
} from '@kubernetes/client-node';
import type { SharedInformers } from './informers.js';
import type { LoadBalancerCapabilities } from './load-balancer-capabilities.js';
import type { ListLoadBalancersOptions, LoadBalancerListPage } from './load-balancer-listing.js';

/**
 * Gives each controller its own Kubernetes client configuration (upstream `ControllerClientBuilder`).
 * `name` is the controller's client name (for example `node-controller`); the user agent becomes
 * `<default user agent>/<name>`.
 */
export interface ControllerClientBuilder {
  /** A KubeConfig for the named client. Throws when no configuration is available. */
  config(name: string): KubeConfig;
  /**
   * A typed API client (for example `CoreV1Api`) for the named client, sharing the process' connection
   * pool and client-side QPS/burst limits.
   */
  client<T>(name: string, api: new (...args: never[]) => T): T;
}

/**
 * The provider: the object a vendor's factory returns (upstream `cloudprovider.Interface`).
 * Optional accessors that are missing, or return `undefined`, mean "not supported".
 */
export interface CloudProvider {
  /**
   * Called once on the elected leader before the controllers start. May start background work,
   * which must stop when `signal` aborts. Errors thrown here are fatal to start-up.
   */
  initialize?(clientBuilder: ControllerClientBuilder, signal: AbortSignal): void | Promise<void>;
  /** The load-balancer facet; without it the service-lb controller does not start. */
  loadBalancer?(): LoadBalancer | undefined;
  /** The legacy instances facet (used only when {@link CloudProvider.instancesV2} is unsupported). */
  instances?(): Instances | undefined;
  /** The preferred instances facet. When supported, Zones is never called. */
  instancesV2?(): InstancesV2 | undefined;
  /** Deprecated zones facet, used only with {@link CloudProvider.instances}. */
  zones?(): Zones | undefined;
  /** Clusters facet; no controller calls it. */
  clusters?(): Clusters | undefined;
  /** Routes facet; without it the node-route controller does not start. */
  routes?(): Routes | undefined;
  /** The provider name, also the providerID prefix (`<name>://<id>`). */
  providerName(): string;
  /** True when a cluster ID is required and set; start-up fails when false unless `--allow-untagged-cloud`. */
  hasClusterID(): boolean;
  /**
   * Optional provider lifecycle hook (no upstream counterpart: Go providers have no shutdown call): drain
   * connections, flush state, stop background work. The cloud-controller-manager calls it **once** when it
   * stops — on every replica, leader or not, and also when start-up fails after the provider was built —
   * **after** every controller has stopped (or the controllers' stop bound has passed) and **before** the
   * process exits. The manager waits at most its provider shutdown timeout (`providerShutdownTimeoutMs`,
   * default 5 000 ms); `signal` aborts when that bound is reached, and the manager then goes on without
   * waiting further. Errors thrown or rejected are logged, never rethrown: they do not change the exit status.
   */
  shutdown?(signal: AbortSignal): void | Promise<void>;
}

/** Optional extra: a provider implementing this receives the shared informers right after `initialize`. */
export interface InformerUser {
  /**
   * Called once, right after `initialize`, with the manager's shared informers (upstream
   * `InformerUser.SetInformers` in cloud.go): a provider keeps them to add handlers or read the listers.
   */
  setInformers(informers: SharedInformers): void;
}

/** Optional extra (deprecated upstream, not called by the controllers): labels for a PersistentVolume. */
export interface PVLabeler {
  /**
   * The zone and region labels for a PersistentVolume (upstream `PVLabeler.GetLabelsForVolume` in cloud.go); no ccm-kit
   * controller calls it.
   */
  getLabelsForVolume(pv: V1PersistentVolume, signal?: AbortSignal): Promise<Record<string, string>>;
}

/** True when `cloud` implements the {@link InformerUser} hook. */
export function isInformerUser(cloud: object): cloud is InformerUser {
  return typeof (cloud as Partial<InformerUser>).setInformers === 'function';
}

/** True when `cloud` implements {@link PVLabeler}. */
export function isPVLabeler(cloud: object): cloud is PVLabeler {
  return typeof (cloud as Partial<PVLabeler>).getLabelsForVolume === 'function';
}

/** Clusters facet (upstream `Clusters`). */
export interface Clusters {
  /** Names of all clusters. */
  listClusters(signal?: AbortSignal): Promise<string[]>;
  /** The DNS name or IP of the named cluster's master. */
  master(clusterName: string, signal?: AbortSignal): Promise<string>;
}

/**
 * Load-balancer facet (upstream `LoadBalancer`). `clusterName` is `--cluster-name` (default `kubernetes`).
 */
export interface LoadBalancer {
  /**
   * Optional, beyond upstream: which Service fields this provider's load balancers honour, read once when the
   * service controller starts. Before any cloud call for a Service, the controller checks it against the
   * declaration: a Service asking for `loadBalancerSourceRanges` the provider does not enforce is refused (no
   * load balancer, a Warning Event `UnsupportedServiceField`); other unsupported fields get the same Warning and
   * proceed. Absent, or a member left out, means upstream behaviour (nothing checked). See
   * docs/service-capabilities.md.
   */
  readonly capabilities?: LoadBalancerCapabilities;
  /**
   * The load balancer's status, or `undefined` when it does not exist. With ImplementedElsewhere
   * semantics, report only load balancers that this provider created.
   */
  getLoadBalancer(
    clusterName: string,
    service: V1Service,
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus | undefined>;
  /** The provider's name for the load balancer; `defaultLoadBalancerName(service)` is the legacy default. */
  getLoadBalancerName(clusterName: string, service: V1Service): string;
  /**
   * Creates or updates the load balancer for `service` over `nodes` and returns its status.
   * @throws RetryError to requeue after a fixed delay (for example while provisioning).
   * @throws ImplementedElsewhereError when another controller owns this load balancer.
   */
  ensureLoadBalancer(
    clusterName: string,
    service: V1Service,
    nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus>;
  /**
   * Updates only the backend hosts of the load balancer.
   * @throws ImplementedElsewhereError when another controller owns this load balancer.
   */
  updateLoadBalancer(clusterName: string, service: V1Service, nodes: V1Node[], signal?: AbortSignal): Promise<void>;
  /**
   * Deletes the load balancer; resolves when it is gone or was already gone.
   * Must never throw ImplementedElsewhereError: a load balancer must always be torn down.
   */
  ensureLoadBalancerDeleted(clusterName: string, service: V1Service, signal?: AbortSignal): Promise<void>;
  /**
   * Optional, beyond upstream (needed only by `service-lb-gc-controller`): one page of the load balancers this
   * provider made for `clusterName`, each with the Service namespace, name and UID recorded on it when
   * `ensureLoadBalancer` made it. Pass `nextPageToken` back as `pageToken` until a page has none. A balancer
   * whose record cannot be read is listed as a `MalformedLoadBalancerRecord` (`{ name, malformed }`),
   * never left out. `ensureLoadBalancerDeleted` with a Service rebuilt from an entry (namespace, name, uid,
   * `spec.type: LoadBalancer`) must find and delete that balancer.
   * @throws any error of the cloud; the caller then treats the whole listing as failed.
   */
  listLoadBalancers?(clusterName: string, options?: ListLoadBalancersOptions): Promise<LoadBalancerListPage>;
  /**
   * Optional, beyond upstream: the load-balancer group of `service`, for clouds that put several Services on
   * one cloud load balancer (a listener per Service, one balancer per node pool or per "stack"). Services with
   * the same group key never have load-balancer calls in flight at the same time from ccm-kit's controllers:
   * the service controller's ensure, update and delete syncs and its host updates, and the orphan collector's
   * delete (`service-lb-gc-controller`, which passes a Service rebuilt from the listing entry: namespace, name,
   * uid, `spec.type: LoadBalancer`). Services with different keys, or none, run in parallel up to
   * `--concurrent-service-syncs`. Absent means upstream behaviour: every Service on its own
   * (`k8s.io/cloud-provider` `controllers/service/controller.go` has no such notion; docs/decisions/0207).
   *
   * - Synchronous and local: computed from the Service (its namespace, labels, annotations) and the provider's
   *   configuration, never by a cloud call; called before every sync of the Service, so keep it cheap.
   * - The same Service must get the same answer while it stays unchanged; a changed answer applies from the
   *   Service's next sync.
   * - `undefined` or `''`: the Service is in no group.
   * @returns the group key, an opaque string compared by equality.
   * @throws any error for a Service it cannot place; the sync then fails as any error does (Warning Event
   *   `SyncLoadBalancerFailed`, rate-limited retry) and no cloud call is made for it.
   */
  loadBalancerGroup?(clusterName: string, service: V1Service): string | undefined;
}

/** Legacy instances facet (upstream `Instances`). Node names are `metadata.name` of the Node. */
export interface Instances {
  /** Addresses of the named node. */
  nodeAddresses(nodeName: string, signal?: AbortSignal): Promise<V1NodeAddress[]>;
  /** Addresses by providerID; called off the node, so it must not use a local metadata service. */
  nodeAddressesByProviderID(providerID: string, signal?: AbortSignal): Promise<V1NodeAddress[]>;
  /**
   * The cloud's instance ID of the named node.
   * @throws InstanceNotFoundError when the instance does not exist (never for stopped instances).
   * @throws NotImplementedError when unsupported.
   */
  instanceID(nodeName: string, signal?: AbortSignal): Promise<string>;
  /** The instance type of the named node. */
  instanceType(nodeName: string, signal?: AbortSignal): Promise<string>;
  /** The instance type by providerID. */
  instanceTypeByProviderID(providerID: string, signal?: AbortSignal): Promise<string>;
  /** Unused by the controllers; may throw NotImplementedError. */
  addSSHKeyToAllInstances(user: string, keyData: Uint8Array, signal?: AbortSignal): Promise<void>;
  /** The node name of the host this process runs on (unused by the controllers). */
  currentNodeName(hostname: string, signal?: AbortSignal): Promise<string>;
  /** False (with no error) means the Node object is deleted; must stay true for stopped instances. */
  instanceExistsByProviderID(providerID: string, signal?: AbortSignal): Promise<boolean>;
  /** True when the instance is shut down; NotImplementedError is treated as "not shut down". */
  instanceShutdownByProviderID(providerID: string, signal?: AbortSignal): Promise<boolean>;
}

/**
 * Preferred instances facet (upstream `InstancesV2`). Each method receives the whole Node:
 * look at `node.spec.providerID` first; fall back to the name, labels or annotations.
 */
export interface InstancesV2 {
  /** False (with no error) means the Node object is deleted; must stay true for stopped instances. */
  instanceExists(node: V1Node, signal?: AbortSignal): Promise<boolean>;
  /** True when the instance is shut down (the Node gets the shutdown taint). */
  instanceShutdown(node: V1Node, signal?: AbortSignal): Promise<boolean>;
  /**
   * Metadata used to initialize the Node, or `undefined` when none is available yet. On `undefined` the
   * cloud-node-controller writes nothing and does **not** requeue: the Node keeps the uninitialized taint until
   * its next add or update event asks again (any change to the Node object, such as a kubelet status update or
   * an informer resync; kubelet lease renewals are another object and do not count) — upstream
   * `k8s.io/cloud-provider` controllers/node/node_controller.go `syncNode`. Throw instead when the answer should
   * be retried with backoff. The status loop skips a Node whose metadata is
   * `undefined` for that pass (docs/decisions/0100).
   */
  instanceMetadata(node: V1Node, signal?: AbortSignal): Promise<InstanceMetadata | undefined>;
  /**
   * Optional batch read (no upstream counterpart): one page of the instances the cloud has, each with what
   * {@link InstancesV2.instanceMetadata} and {@link InstancesV2.instanceShutdown} would answer for a Node with
   * its providerID. With it, the cloud-node controller's status pass and the cloud-node-lifecycle monitor read
   * a few pages per pass instead of calling once per Node (docs/interfaces/instances-v2.md "Batch reads",
   * docs/decisions/0103-batch-instance-reads.md). Without it they call per Node, exactly as upstream.
   *
   * - `pageToken` is `undefined` for the first page, then the previous page's `nextPageToken`; the token is
   *   opaque to the caller. A page without `nextPageToken` (or with `''`) is the last one.
   * - List only instances for which `instanceExists` would answer `true` (stopped ones included, with
   *   `shutdown: true`); an instance in the listing **exists**.
   * - **Absence from a listing never means "gone".** A Node whose providerID is not listed — on a complete or
   *   a partial listing — is asked about with the per-Node methods, and only their answer can delete it. So a
   *   provider may leave out instances it is unsure of (for example one still being created).
   * - Throw (reject) when the page cannot be read (5xx, 429, timeout, authorization, abort): the pass then asks
   *   per Node for every Node it has not found in the pages read so far. Never answer a short page for an error.
   * - The callers may stop before the last page once every Node they need is found.
   * @param pageToken - `undefined` for the first page, else the previous page's `nextPageToken`.
   * @returns one page; may be empty with a `nextPageToken`.
   * @throws the provider's errors for a page that cannot be read.
   */
  listInstanceStates?(pageToken: string | undefined, signal?: AbortSignal): Promise<InstanceStatePage>;
}

/** One instance of a {@link InstancesV2.listInstanceStates} page: what the per-Node methods would answer. */
export interface InstanceState {
  /**
   * `<provider>://<id>`, exactly the string the Node carries in `spec.providerID` (the one `instanceMetadata`
   * reports): Nodes are matched to instances by string equality.
   */
  providerID: string;
  /** What `instanceMetadata` answers for a Node with this providerID. */
  metadata: InstanceMetadata;
  /** What `instanceShutdown` answers: `true` for a stopped instance. */
  shutdown: boolean;
}

/** One page of {@link InstancesV2.listInstanceStates}. */
export interface InstanceStatePage {
  /** The instances of this page, in any order. */
  instances: InstanceState[];
  /** The token of the next page; absent (or `''`) on the last page. */
  nextPageToken?: string;
}

/** What a provider knows about a Node's machine (upstream `InstanceMetadata`). Empty strings mean unset. */
export interface InstanceMetadata {
  /** Written to `spec.providerID` once, at initialization; format `<provider>://<id>`. */
  providerID?: string;
  /** Becomes `node.kubernetes.io/instance-type` and `beta.kubernetes.io/instance-type`. */
  instanceType?: string;
  /** Becomes `status.addresses`. */
  nodeAddresses?: V1NodeAddress[];
  /** Becomes `topology.kubernetes.io/zone` and `failure-domain.beta.kubernetes.io/zone`. */
  zone?: string;
  /** Becomes `topology.kubernetes.io/region` and `failure-domain.beta.kubernetes.io/region`. */
  region?: string;
  /** Extra labels, filtered by the cloud-node controller (kubernetes.io / k8s.io prefixes are refused). */
  additionalLabels?: Record<string, string>;
}

/** A zone (upstream `Zone`). */
export interface Zone {
  /** The zone, becomes `topology.kubernetes.io/zone` (and `failure-domain.beta.kubernetes.io/zone`) on the Node. */
  failureDomain: string;
  /**
   * The region, becomes `topology.kubernetes.io/region` (and `failure-domain.beta.kubernetes.io/region`) on the Node.
   */
  region: string;
}

/** Deprecated zones facet (upstream `Zones`); never called when InstancesV2 is supported. */
export interface Zones {
  /** The zone of the host this process runs on. */
  getZone(signal?: AbortSignal): Promise<Zone>;
  /** The zone of the instance with this providerID. */
  getZoneByProviderID(providerID: string, signal?: AbortSignal): Promise<Zone>;
  /** The zone of the named node. */
  getZoneByNodeName(nodeName: string, signal?: AbortSignal): Promise<Zone>;
}

/** A cloud route (upstream `Route`). */
export interface Route {
  /** The provider's name for the route; ignored on create. */
  name?: string;
  /** The Node name the route sends traffic to. */
  targetNode: string;
  /** When false, {@link Route.targetNodeAddresses} is ignored. */
  enableNodeAddresses?: boolean;
  /** The target Node's addresses, when {@link Route.enableNodeAddresses} is true. */
  targetNodeAddresses?: V1NodeAddress[];
  /** The destination CIDR, for example `10.244.1.0/24`. */
  destinationCIDR: string;
  /** A blackhole route (its target is gone); such routes inside the cluster CIDR are deleted. */
  blackhole?: boolean;
}

/** Routes facet (upstream `Routes`). */
export interface Routes {
  /** The managed routes of this cluster. */
  listRoutes(clusterName: string, signal?: AbortSignal): Promise<Route[]>;
  /** Creates a route; `nameHint` is the Node UID and may be used to name it. */
  createRoute(clusterName: string, nameHint: string, route: Route, signal?: AbortSignal): Promise<void>;
  /** Deletes a route that {@link Routes.listRoutes} returned. */
  deleteRoute(clusterName: string, route: Route, signal?: AbortSignal): Promise<void>;
}

/**
 * Builds a provider from its configuration (upstream `Factory`).
 * @param config - the contents of the `--cloud-config` file as UTF-8 text, or `undefined` without a file.
 * @returns the provider; `undefined` is reported by `initCloudProvider` as an unknown provider.
 */
export type CloudProviderFactory = (
  config: string | undefined,
) => CloudProvider | undefined | Promise<CloudProvider | undefined>;

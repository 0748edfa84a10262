/**
 * The provider's names: its registry name, providerID scheme, Service annotations and the labels it
 * puts on cloud resources. A vendor renames these first.
 */

/** `--cloud-provider=mockcloud`; also the providerID scheme. */
export const PROVIDER_NAME = 'mockcloud';

/** Prefix of every providerID this provider issues: `mockcloud://<server id>`. */
export const PROVIDER_ID_PREFIX = `${PROVIDER_NAME}://`;

/** The prefix of every Service annotation of the provider; an undeclared one under it is an error. */
export const ANNOTATION_PREFIX = 'mockcloud.ccm-kit.io/';

/**
 * Service annotation holding the cloud load balancer's ID. Written by the provider after it creates or
 * finds the load balancer; set it yourself to adopt an existing load balancer.
 */
export const ANNOTATION_LOAD_BALANCER_ID = 'mockcloud.ccm-kit.io/load-balancer-id';

/** Service annotation: `"true"` sends a PROXY protocol header on TCP listeners (status gets `ipMode: Proxy`). */
export const ANNOTATION_PROXY_PROTOCOL = 'mockcloud.ccm-kit.io/proxy-protocol';

/** Service annotation: a label selector choosing which Nodes become targets (`pool=edge,!gpu`). */
export const ANNOTATION_NODE_SELECTOR = 'mockcloud.ccm-kit.io/node-selector';

/** Service annotation: the health-check period, a duration (`10s`). */
export const ANNOTATION_HEALTH_CHECK_INTERVAL = 'mockcloud.ccm-kit.io/health-check-interval';

/** Cloud label with the owning Service's UID. */
export const LABEL_SERVICE_UID = 'mockcloud.ccm-kit.io/service-uid';

/** Cloud label with the cluster ID (on load balancers, and on servers by the tagger). */
export const LABEL_CLUSTER_ID = 'mockcloud.ccm-kit.io/cluster-id';

/** Informational cloud labels with the Service's namespace and name. */
export const LABEL_SERVICE_NAMESPACE = 'mockcloud.ccm-kit.io/service-namespace';
export const LABEL_SERVICE_NAME = 'mockcloud.ccm-kit.io/service-name';

/** Server labels written by the tagger controller. */
export const LABEL_NODE_NAME = 'mockcloud.ccm-kit.io/node-name';
export const LABEL_NODE_ZONE = 'mockcloud.ccm-kit.io/node-zone';

/** The Kubernetes client name the provider patches Services with. */
export const PROVIDER_CLIENT_NAME = 'mockcloud-cloud-provider';

/**
 * Builders of the Nodes and Services controller tests start from. Each returns a fresh object; the
 * options override the defaults named in each docstring.
 */
import type {
  V1Node,
  V1NodeAddress,
  V1NodeCondition,
  V1ObjectMeta,
  V1Service,
  V1ServicePort,
  V1Taint,
} from '@kubernetes/client-node';

/**
 * The taint a kubelet started with `--cloud-provider=external` registers its Node with
 * (`node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule`, upstream
 * `k8s.io/cloud-provider/api` `TaintExternalCloudProvider`). Returns a new copy on each call.
 */
export function uninitializedTaint(): V1Taint {
  return { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };
}

/** Options of {@link kubeletNode}. */
export interface KubeletNodeOptions {
  /** `spec.taints`; default `[uninitializedTaint()]`. */
  taints?: V1Taint[];
  /** `spec.providerID`; default unset (the kubelet does not know it). */
  providerID?: string;
  /** `metadata.labels`; default unset. */
  labels?: Record<string, string>;
  /** `metadata.annotations`; default unset. */
  annotations?: Record<string, string>;
  /** `status.addresses`; default unset. */
  addresses?: V1NodeAddress[];
  /** A `Ready` condition with this status (reason `KubeletReady`, timestamps now); default none. */
  ready?: 'True' | 'False' | 'Unknown';
  /** Other `metadata` fields (`uid`, `resourceVersion`, `creationTimestamp`, …), laid over the ones above. */
  metadata?: V1ObjectMeta;
  /** Pod CIDRs as the node IPAM controller allocates them (`spec.podCIDR` = the first, `spec.podCIDRs`); default unset. */
  podCIDRs?: string[];
}

/**
 * A Node as a kubelet with `--cloud-provider=external` registers it: `metadata.name`, the uninitialized
 * taint, and no providerID, addresses or conditions unless given.
 */
export function kubeletNode(name: string, options: KubeletNodeOptions = {}): V1Node {
  const node: V1Node = {
    metadata: { name, labels: options.labels, annotations: options.annotations, ...options.metadata },
    spec: { taints: options.taints ?? [uninitializedTaint()], providerID: options.providerID },
    status: { addresses: options.addresses },
  };
  if (options.podCIDRs) setPodCIDRs(node, options.podCIDRs);
  if (options.ready) {
    const now = new Date();
    node.status!.conditions = [
      {
        type: 'Ready',
        status: options.ready,
        reason: 'KubeletReady',
        message: 'test',
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      },
    ];
  }
  return node;
}

/** Options of {@link initializedNode}. */
export interface InitializedNodeOptions {
  /** `spec.providerID`; default `fake://<name>`. */
  providerID?: string;
  /** `metadata.labels`; default `{}`. */
  labels?: Record<string, string>;
  /** `spec.taints`; default none. */
  taints?: V1Taint[];
  /** `status.addresses`; default `[]`. */
  addresses?: V1NodeAddress[];
  /** The `Ready` condition's status, or `'unset'` for no Ready condition; default `'True'`. */
  ready?: 'True' | 'False' | 'Unknown' | 'unset';
  /** Further `status.conditions`, after the Ready one (e.g. `NetworkUnavailable`); default none. */
  conditions?: V1NodeCondition[];
  /**
   * The Pod CIDRs the node IPAM controller allocated: `spec.podCIDRs`, and `spec.podCIDR` = the first (as the API
   * server keeps them); default unset (no route for the Node).
   */
  podCIDRs?: string[];
  /** Other `metadata` fields (`uid`, `resourceVersion`, `deletionTimestamp`, …), laid over `name` and `labels`. */
  metadata?: V1ObjectMeta;
}

/**
 * A Node the cloud-node controller has initialized: a providerID, no uninitialized taint, and a Ready
 * condition (`True` by default).
 */
export function initializedNode(name: string, options: InitializedNodeOptions = {}): V1Node {
  const ready = options.ready ?? 'True';
  const conditions: V1NodeCondition[] = ready === 'unset' ? [] : [{ type: 'Ready', status: ready }];
  const node: V1Node = {
    metadata: { name, labels: options.labels ?? {}, ...options.metadata },
    spec: { providerID: options.providerID ?? `fake://${name}`, taints: options.taints ?? [] },
    status: {
      addresses: options.addresses ?? [],
      conditions: [...conditions, ...(options.conditions ?? [])],
    },
  };
  if (options.podCIDRs) setPodCIDRs(node, options.podCIDRs);
  return node;
}

/** `spec.podCIDRs`, and `spec.podCIDR` = the first, as the API server keeps them. */
function setPodCIDRs(node: V1Node, podCIDRs: string[]): void {
  node.spec!.podCIDR = podCIDRs[0];
  node.spec!.podCIDRs = podCIDRs;
}

/** Options of {@link loadBalancerService}. */
export interface LoadBalancerServiceOptions {
  /** Default `default`. */
  namespace?: string;
  /** `metadata.uid`; default `uid-<namespace>-<name>`. */
  uid?: string;
  /** `metadata.annotations`; default `{}`. */
  annotations?: Record<string, string>;
  /** `spec.ports`; default one port `{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }`. */
  ports?: V1ServicePort[];
  /** Other `spec` fields, laid over the defaults (`type: 'LoadBalancer'` and the ports). */
  spec?: Partial<NonNullable<V1Service['spec']>>;
  /** `status`; default `{}`. */
  status?: V1Service['status'];
  /** Other `metadata` fields (`finalizers`, `deletionTimestamp`, `labels`, …), laid over the ones above. */
  metadata?: V1ObjectMeta;
}

/** A `type: LoadBalancer` Service (`apiVersion: v1`, `kind: Service`) with one TCP port unless given. */
export function loadBalancerService(name: string, options: LoadBalancerServiceOptions = {}): V1Service {
  const namespace = options.namespace ?? 'default';
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace,
      uid: options.uid ?? `uid-${namespace}-${name}`,
      annotations: options.annotations ?? {},
      ...options.metadata,
    },
    spec: {
      type: 'LoadBalancer',
      ports: options.ports ?? [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }],
      ...options.spec,
    },
    status: options.status ?? {},
  };
}

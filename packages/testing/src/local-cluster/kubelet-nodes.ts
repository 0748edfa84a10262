/**
 * Nodes registered the way a kubelet with `--cloud-provider=external` registers itself
 * (k8s.io/kubernetes pkg/kubelet kubelet_node_status.go initialNode): the
 * `node.cloudprovider.kubernetes.io/uninitialized` taint, no providerID, the kubelet's own addresses (or
 * the `alpha.kubernetes.io/provided-node-ip` annotation from `--node-ip`), and a Ready condition whose
 * heartbeat is refreshed as a kubelet's status updates do. For `ccm-kit dev` and the local demo.
 */
import { type CoreV1Api, setHeaderOptions, type V1Node } from '@kubernetes/client-node';

/** One kubelet-style Node. */
export interface KubeletNode {
  /** The Node's name (also its `kubernetes.io/hostname` label). */
  name: string;
  /** Labels the kubelet sets (`kubernetes.io/hostname` is added). */
  labels?: Record<string, string>;
  /** InternalIP the kubelet reports; omitted: only the Hostname address. */
  internalIP?: string;
  /** `--node-ip`: written as the `alpha.kubernetes.io/provided-node-ip` annotation. */
  providedNodeIP?: string;
  /**
   * The Node's Pod CIDRs (`spec.podCIDR` is the first, `spec.podCIDRs` all), as the node IPAM controller of the
   * cluster would have allocated them; what the node-route-controller routes. Omitted: none.
   */
  podCIDRs?: string[];
}

/** The annotation a kubelet with an external cloud provider sets from `--node-ip`. */
export const PROVIDED_NODE_IP_ANNOTATION = 'alpha.kubernetes.io/provided-node-ip';
const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';
// Strategic merge: conditions merge by type, so other writers' conditions (NetworkUnavailable) stay.
const strategicMerge = setHeaderOptions('Content-Type', 'application/strategic-merge-patch+json');

function readyStatus(n: KubeletNode, since: Date) {
  return {
    addresses: [
      ...(n.internalIP ? [{ type: 'InternalIP', address: n.internalIP }] : []),
      { type: 'Hostname', address: n.name },
    ],
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
        lastHeartbeatTime: new Date(),
        lastTransitionTime: since,
      },
    ],
  };
}

/**
 * Creates the Nodes (an existing Node of the same name is left as it is) and posts their Ready status.
 * @returns a function that posts a fresh heartbeat for every Node (call it periodically, as kubelets do
 *   every `--node-status-update-frequency`).
 * @throws the API error when a Node cannot be created or patched.
 */
export async function registerKubeletNodes(
  core: CoreV1Api,
  nodes: readonly KubeletNode[],
): Promise<() => Promise<void>> {
  const since = new Date();
  for (const n of nodes) {
    const body: V1Node = {
      metadata: {
        name: n.name,
        labels: { 'kubernetes.io/hostname': n.name, ...n.labels },
        annotations: n.providedNodeIP ? { [PROVIDED_NODE_IP_ANNOTATION]: n.providedNodeIP } : undefined,
      },
      spec: {
        taints: [{ key: UNINITIALIZED, value: 'true', effect: 'NoSchedule' }],
        ...(n.podCIDRs?.length ? { podCIDR: n.podCIDRs[0], podCIDRs: n.podCIDRs } : {}),
      },
    };
    await core.createNode({ body }).catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  }
  const heartbeat = async () => {
    for (const n of nodes) {
      // Only the Ready condition: the addresses are the CCM's once it initialized the Node.
      const { conditions, addresses } = readyStatus(n, since);
      const current = await core.readNodeStatus({ name: n.name });
      const status = current.spec?.providerID ? { conditions } : { conditions, addresses };
      await core.patchNodeStatus({ name: n.name, body: { status } }, strategicMerge);
    }
  };
  await heartbeat();
  return heartbeat;
}

/**
 * What `ccm-kit dev` shows: the Nodes and Services tables (as the local demo prints them) and the latest
 * Events, redrawn in place on a terminal and printed when they change otherwise.
 */
import { nodeTable, serviceTable, table } from '@ccm-kit/testing';
import type { CoreV1Api, CoreV1Event, V1Node, V1Service } from '@kubernetes/client-node';

export interface ClusterState {
  nodes: V1Node[];
  services: V1Service[];
  events: CoreV1Event[];
}

const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';

/** Nodes with a providerID and without the uninitialized taint. */
export function initializedNodes(nodes: readonly V1Node[]): V1Node[] {
  return nodes.filter((n) => n.spec?.providerID && !n.spec.taints?.some((t) => t.key === UNINITIALIZED));
}

/** LoadBalancer Services with an ingress. */
export function servedLoadBalancers(services: readonly V1Service[]): V1Service[] {
  return services.filter((s) => s.spec?.type === 'LoadBalancer' && (s.status?.loadBalancer?.ingress?.length ?? 0) > 0);
}

/** Reads the state shown (LoadBalancer Services only; the 8 newest Events). */
export async function readClusterState(core: CoreV1Api): Promise<ClusterState> {
  const [nodes, services, events] = await Promise.all([
    core.listNode({}),
    core.listServiceForAllNamespaces({}),
    core.listEventForAllNamespaces({}),
  ]);
  const time = (e: CoreV1Event) =>
    new Date(e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? 0).getTime();
  return {
    nodes: nodes.items,
    services: services.items.filter((s) => s.spec?.type === 'LoadBalancer'),
    events: events.items.sort((a, b) => time(a) - time(b)).slice(-8),
  };
}

/** The whole view as text. */
export function renderView(state: ClusterState): string {
  const lbs = state.services.length;
  return [
    `nodes initialized: ${initializedNodes(state.nodes).length}/${state.nodes.length}   load balancers served: ${servedLoadBalancers(state.services).length}/${lbs}`,
    '',
    nodeTable(state.nodes),
    '',
    lbs ? serviceTable(state.services) : '(no LoadBalancer Services; create one, or start with --service)',
    '',
    table(
      ['TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
      state.events.map((e) => [
        e.type ?? '',
        e.reason ?? '',
        `${e.involvedObject.kind}/${e.involvedObject.name}`,
        (e.message ?? '').slice(0, 100),
      ]),
    ),
  ].join('\n');
}

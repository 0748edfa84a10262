/**
 * The tagger's pure logic: which cloud servers need which labels so that each server says which Node
 * and zone it serves (DigitalOcean's tag syncer, AWS's tagging controller, reduced to labels).
 *
 * For every Node with a mockcloud providerID of a listed server, the server gets
 * `mockcloud.ccm-kit.io/cluster-id`, `…/node-name` and `…/node-zone` (from `topology.kubernetes.io/zone`;
 * removed when the Node has no valid zone). A server labelled with this cluster's ID whose Node is gone
 * loses those three labels. Servers of other clusters and labels of other owners are never touched.
 */
import { LABEL_TOPOLOGY_ZONE } from '@ccm-kit/cloud-provider';
import type { V1Node } from '@kubernetes/client-node';
import type { Server } from '../client/index.js';
import { LABEL_CLUSTER_ID, LABEL_NODE_NAME, LABEL_NODE_ZONE } from '../provider/names.js';
import { serverIDFromProviderID } from '../provider/provider-id.js';
import { labelValueProblem } from '../shared/labels.js';

/** One label change: the server's complete new label map. */
export interface LabelUpdate {
  serverID: string;
  labels: Record<string, string>;
  /** `tag` for a Node's server, `untag` for a server whose Node is gone. */
  action: 'tag' | 'untag';
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

/** The label updates that bring `servers` in line with `nodes` (empty when nothing changes). */
export function planServerLabels(
  nodes: readonly V1Node[],
  servers: readonly Server[],
  clusterID: string,
): LabelUpdate[] {
  const nodeByServer = new Map<string, V1Node>();
  for (const node of nodes) {
    let id: string | undefined;
    try {
      id = serverIDFromProviderID(node.spec?.providerID ?? '');
    } catch {
      id = undefined;
    }
    if (id !== undefined) nodeByServer.set(id, node);
  }
  const updates: LabelUpdate[] = [];
  for (const server of servers) {
    const node = nodeByServer.get(server.id);
    const labels = { ...server.labels };
    let action: LabelUpdate['action'];
    if (node) {
      action = 'tag';
      labels[LABEL_CLUSTER_ID] = clusterID;
      const name = node.metadata?.name ?? '';
      if (name && !labelValueProblem(name)) labels[LABEL_NODE_NAME] = name;
      else delete labels[LABEL_NODE_NAME];
      const zone = node.metadata?.labels?.[LABEL_TOPOLOGY_ZONE];
      if (zone && !labelValueProblem(zone)) labels[LABEL_NODE_ZONE] = zone;
      else delete labels[LABEL_NODE_ZONE];
    } else if (server.labels[LABEL_CLUSTER_ID] === clusterID) {
      action = 'untag';
      delete labels[LABEL_CLUSTER_ID];
      delete labels[LABEL_NODE_NAME];
      delete labels[LABEL_NODE_ZONE];
    } else continue;
    if (!sameLabels(labels, server.labels)) updates.push({ serverID: server.id, labels, action });
  }
  return updates;
}

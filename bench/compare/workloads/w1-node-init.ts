/**
 * W1, node initialisation burst: N Nodes as a kubelet with `--cloud-provider=external` registers them
 * (uninitialized taint, no providerID) exist before the CCM starts. Converged when every Node has the
 * providerID, no taint, the InternalIP and the zone label. Wall and latency from the CCM's spawn.
 */
import type { V1Node } from '@kubernetes/client-node';
import { makeNode, nodeConverged, nodeName } from '../objects.ts';
import { fromSpawn, qpsTimeout, range, SIZE, type Workload } from './workload.ts';

export const w1: Workload = {
  id: 'W1',
  title: 'W1: Node initialisation burst (N tainted Nodes exist before the CCM starts; wall and latency from CCM spawn)',
  sizes: [SIZE.N, SIZE.c],
  controllers: 'cloud-node-controller,service-lb-controller',
  columns: [],
  timeoutMs: (s) => qpsTimeout(s.nodes, s.qps),
  async drive(h) {
    const idx = range(h.spec.nodes);
    await h.createNodes(idx.map((i) => makeNode(i, false)));
    const obs = await h.observe<V1Node>(
      '/api/v1/nodes',
      nodeConverged,
      idx.map((i) => nodeName(i)),
    );
    const ccm = h.spawnCcm();
    await h.waitAll(obs);
    return fromSpawn(
      ccm.startedAtMs,
      obs.convergedAt,
      idx.map((i) => nodeName(i)),
    );
  },
};

/**
 * W5, node lifecycle: N Ready Nodes, K Nodes whose instance is gone and K whose instance is shut down
 * (fakebench decides by name, `-gone-` / `-shutdown-`; those 2K Nodes are Ready=Unknown, as after the
 * kubelet stopped posting), all initialized, exist before the CCM starts with the
 * cloud-node-lifecycle-controller (k8s.io/cloud-provider controllers/nodelifecycle MonitorNodes, every
 * `--node-monitor-period`, 5 s). Converged when every gone Node is deleted and every shut-down Node has
 * the `node.cloudprovider.kubernetes.io/shutdown` taint. Wall and latency from the CCM's spawn. The
 * monitor keeps asking the cloud about the shut-down Nodes every period, so cloud-call totals depend on
 * how long the run lasts.
 */
import type { V1Node } from '@kubernetes/client-node';
import { makeNode, nodeLifecycleDone, nodeName } from '../objects.ts';
import { fromSpawn, qpsTimeout, range, SIZE, type Workload } from './workload.ts';

export const w5: Workload = {
  id: 'W5',
  title:
    'W5: Node lifecycle (N Ready Nodes, K gone and K shut-down instances with Ready=Unknown; converged when the gone Nodes are deleted and the shut-down ones tainted; from CCM spawn)',
  sizes: [SIZE.N, SIZE.K, SIZE.c],
  controllers: 'cloud-node-lifecycle-controller',
  columns: [],
  timeoutMs: (s) => qpsTimeout(s.nodes + 2 * s.k, s.qps),
  async drive(h) {
    const { nodes: n, k } = h.spec;
    const gone = range(k).map((i) => nodeName(i, 'gone'));
    const shutdown = range(k).map((i) => nodeName(i, 'shutdown'));
    await h.createNodes([
      ...range(n).map((i) => makeNode(i, true)),
      ...gone.map((name, i) => makeNode(n + i, true, { name, ready: false })),
      ...shutdown.map((name, i) => makeNode(n + k + i, true, { name, ready: false })),
    ]);
    const obs = await h.observe<V1Node>('/api/v1/nodes', nodeLifecycleDone, [...gone, ...shutdown]);
    const ccm = h.spawnCcm();
    await h.waitAll(obs);
    return fromSpawn(ccm.startedAtMs, obs.convergedAt, [...gone, ...shutdown]);
  },
};

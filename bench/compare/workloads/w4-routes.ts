/**
 * W4, routes: N initialized Nodes with podCIDRs (10.64.0.0/10) exist before the CCM starts, and the
 * cloud holds S stale routes no Node owns (`FAKEBENCH_STALE_ROUTES`). The node-route-controller runs
 * with `--allocate-node-cidrs --configure-cloud-routes --cluster-cidr=10.64.0.0/10` (k8s.io/cloud-provider
 * controllers/route/route_controller.go reconcile). Converged when every Node has NetworkUnavailable=False
 * and the route table is exactly one route per Node (checked by a hash of CIDR → Node). Wall and
 * latency from the CCM's spawn.
 */
import type { V1Node } from '@kubernetes/client-node';
import { fnv32a } from '../../fakebench.ts';
import { makeNode, nodeName, nodeRouted } from '../objects.ts';
import { fromSpawn, qpsTimeout, range, ROUTE_FLAGS, SIZE, type Workload } from './workload.ts';

/** The routesHash of fakebench's counters when the table holds one route per Node `0..n-1`. */
function expectedRoutesHash(n: number): number {
  let sum = 0;
  for (const i of range(n)) sum = (sum + fnv32a(`${makeNode(i, true).spec!.podCIDR!}>${nodeName(i)}`)) >>> 0;
  return sum;
}

export const w4: Workload = {
  id: 'W4',
  title:
    'W4: Routes (N Nodes with podCIDRs, S stale routes in the cloud; converged when every Node has NetworkUnavailable=False and the route table is one route per Node; from CCM spawn)',
  sizes: [SIZE.N, SIZE.S, SIZE.c],
  controllers: 'node-route-controller',
  flags: () => ROUTE_FLAGS,
  env: (s) => ({ FAKEBENCH_STALE_ROUTES: String(s.k), FAKEBENCH_COUNTERS_INTERVAL_MS: '100' }),
  columns: [],
  timeoutMs: (s) => qpsTimeout(s.nodes + s.k, s.qps),
  async drive(h) {
    const idx = range(h.spec.nodes);
    await h.createNodes(idx.map((i) => makeNode(i, true)));
    const obs = await h.observe<V1Node>(
      '/api/v1/nodes',
      nodeRouted,
      idx.map((i) => nodeName(i)),
    );
    const ccm = h.spawnCcm();
    await h.waitAll(obs);
    await h.waitCounters('one route per Node', (c) => c.routes === h.spec.nodes);
    return fromSpawn(
      ccm.startedAtMs,
      obs.convergedAt,
      idx.map((i) => nodeName(i)),
    );
  },
  verify: (spec, c) => {
    const problems: string[] = [];
    if (c.routes !== spec.nodes) problems.push(`the cloud holds ${c.routes} routes, expected ${spec.nodes}`);
    else if (c.routesHash !== expectedRoutesHash(spec.nodes))
      problems.push('the route table is not one route per Node (hash differs)');
    return problems;
  },
};

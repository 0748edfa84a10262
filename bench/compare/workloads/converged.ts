/**
 * A converged cluster for the at-rest workloads (W6, W7, W8): N initialized Nodes and M LoadBalancer
 * Services exist before the CCM starts; it has converged when every Service has an ingress, every
 * balancer holds the N hosts, the status pass asked the cloud about every Node and, with the route
 * controller, the cloud holds one route per Node; then the harness waits until the CCM's API traffic is
 * quiet (2 s).
 */
import type { V1Service } from '@kubernetes/client-node';
import { waitForQuiet } from '../audit.ts';
import type { Harness } from '../harness.ts';
import { BENCH_NAMESPACE, makeNode, serviceConverged, serviceName } from '../objects.ts';
import { range } from './workload.ts';

/** Creates the Nodes and Services (before any CCM runs). */
export async function createCluster(h: Harness): Promise<void> {
  await h.createNodes(range(h.spec.nodes).map((i) => makeNode(i, true)));
  await h.createNamespace();
  await h.createServices(h.spec.services);
}

/**
 * Spawns the CCM and waits until it converged and went quiet.
 * @returns Unix ms of the spawn and of the last Service's ingress
 */
export async function spawnAndConverge(
  h: Harness,
  opts: { routes: boolean },
): Promise<{ spawnedAtMs: number; convergedAtMs: number }> {
  const { nodes: n, services: m } = h.spec;
  const names = range(m).map(serviceName);
  const obs = await h.observe<V1Service>(`/api/v1/namespaces/${BENCH_NAMESPACE}/services`, serviceConverged, names);
  const ccm = h.spawnCcm();
  await h.waitAll(obs);
  obs.stop();
  await h.waitCounters(
    'balancers with every host, the status pass' + (opts.routes ? ' and one route per Node' : ''),
    (c) =>
      c.loadBalancers === m &&
      c.lbHostsTotal === m * n &&
      // Per Node, or from the batch read's pages (ccm-kit with the `b` suffix).
      (c.calls.InstanceMetadata ?? 0) + (c.instancesListed ?? 0) >= n &&
      (!opts.routes || c.routes === n),
  );
  await waitForQuiet(h.files.auditLog, h.user.name, 2_000, 60_000);
  return { spawnedAtMs: ccm.startedAtMs, convergedAtMs: Math.max(...names.map((s) => obs.convergedAt.get(s)!)) };
}

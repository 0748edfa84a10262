/**
 * W2, LoadBalancer Services: N initialized Nodes; once the CCM's status pass has asked the cloud about
 * all of them (its caches have synced), the harness creates M Services, 10 at a time. Converged when
 * each has an ingress. Wall from the first create, latency from each create to its ingress.
 */
import type { V1Service } from '@kubernetes/client-node';
import { BENCH_NAMESPACE, makeNode, serviceConverged, serviceName } from '../objects.ts';
import { qpsTimeout, range, SIZE, type Workload } from './workload.ts';

export const w2: Workload = {
  id: 'W2',
  title:
    'W2: LoadBalancer Services (M Services created after the CCM is up over N initialized Nodes; wall from first create, latency create → ingress; CPU in brackets: the share from readiness to rest)',
  sizes: [SIZE.N, SIZE.M, SIZE.c],
  controllers: 'cloud-node-controller,service-lb-controller',
  columns: [],
  timeoutMs: (s) => qpsTimeout(s.nodes + s.services, s.qps),
  async drive(h) {
    const { nodes, services } = h.spec;
    await h.createNodes(range(nodes).map((i) => makeNode(i, true)));
    await h.createNamespace();
    h.spawnCcm();
    // Ready: the status pass over the (initialized) Nodes ran, so the Node cache has synced.
    await h.waitCounters('the status pass over the Nodes', (c) => (c.calls.InstanceMetadata ?? 0) >= nodes);
    const ready = await h.ccm!.sample();
    const names = range(services).map(serviceName);
    const obs = await h.observe<V1Service>(`/api/v1/namespaces/${BENCH_NAMESPACE}/services`, serviceConverged, names);
    const startMs = Date.now();
    const createdAt = await h.createServices(services, 10);
    await h.waitAll(obs);
    return {
      startMs,
      endMs: Math.max(...names.map((n) => obs.convergedAt.get(n)!)),
      latenciesMs: names.map((n) => Math.max(0, obs.convergedAt.get(n)! - createdAt.get(n)!)),
      cpuPhaseStartS: ready.cpuSeconds,
      extra: {},
    };
  },
  verify: (spec, c) =>
    c.lbHostsTotal === spec.services * spec.nodes
      ? []
      : [`balancers hold ${c.lbHostsTotal} hosts in total, expected ${spec.services * spec.nodes}`],
};

/**
 * W8, memory at scale: N initialized Nodes (default 5,000) and M LoadBalancer Services (default 1,000)
 * exist before the CCM starts (cloud-node and service-lb controllers); converged when every Service has
 * an ingress, every balancer holds the N hosts and the status pass asked about every Node; then at rest
 * (API quiet for 2 s) VmHWM and VmRSS are read. Wall from the CCM's spawn to the last ingress. fakebench
 * keeps only a count and a hash of each balancer's hosts, so the cloud adds little to either process.
 */
import { SIZE, type Workload } from './workload.ts';
import { createCluster, spawnAndConverge } from './converged.ts';

export const w8: Workload = {
  id: 'W8',
  title:
    'W8: At rest at scale (N initialized Nodes and M Services exist before the CCM starts; wall from spawn to the last ingress; memory at rest)',
  sizes: [SIZE.N, SIZE.M, SIZE.c],
  controllers: 'cloud-node-controller,service-lb-controller',
  columns: [],
  // Every Service's balancer holds every Node: Go's service controller sends N hosts per Service (about 6 µs a
  // host at 20,000 Nodes and 1,000 Services), so the wait grows with N × M as well as with the writes.
  timeoutMs: (s) =>
    300_000 + ((4 * s.services + s.nodes / 100) / Math.max(s.qps, 1)) * 2000 + (s.nodes * s.services) / 100,
  async drive(h) {
    await createCluster(h);
    const { spawnedAtMs, convergedAtMs } = await spawnAndConverge(h, { routes: false });
    return { startMs: spawnedAtMs, endMs: convergedAtMs, latenciesMs: [], extra: {} };
  },
};

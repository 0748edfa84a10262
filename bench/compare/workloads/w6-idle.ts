/**
 * W6, idle cost: a converged cluster (N Nodes, M LoadBalancer Services, one route per Node) and a CCM
 * with every controller; after it went quiet, the harness measures `minutes` at rest: CPU seconds, API
 * requests (audit log) and cloud calls (counters), each per minute, and VmRSS at the end. The periodic
 * work upstream does at rest is counted too: the Node status pass every `--node-status-update-frequency`
 * (5 min: N InstanceMetadata), route reconciliation every `--route-reconciliation-period` (10 s: one
 * ListRoutes), the lifecycle monitor every 5 s (no cloud call for Ready Nodes). The implementations of
 * one repetition run at the same time, each on its own control plane (idle processes do not compete;
 * ten minutes each in turn would not fit the matrix).
 */
import { readApiTraffic } from '../audit.ts';
import { ALL_CONTROLLERS, ROUTE_FLAGS, SIZE, type Workload } from './workload.ts';
import { createCluster, spawnAndConverge } from './converged.ts';

const sum = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);

export const w6: Workload = {
  id: 'W6',
  title:
    'W6: Idle cost (converged N Nodes, M Services, one route per Node, every controller; measured over the idle window, implementations side by side at the same time)',
  sizes: [SIZE.N, SIZE.M, SIZE.min],
  controllers: ALL_CONTROLLERS,
  flags: () => ROUTE_FLAGS,
  concurrent: true,
  columns: [
    { key: 'idleCpuPerMin', label: 'idle CPU s/min', digits: 3 },
    { key: 'idleApiPerMin', label: 'idle API req/min', digits: 1 },
    { key: 'idleCloudPerMin', label: 'idle cloud calls/min', digits: 1 },
    { key: 'idleRssMiB', label: 'VmRSS at end MiB', digits: 0 },
  ],
  timeoutMs: (s) => 240_000 + ((4 * (s.nodes + s.services)) / Math.max(s.qps, 1)) * 2000,
  async drive(h) {
    await createCluster(h);
    await spawnAndConverge(h, { routes: true });
    const t0 = Date.now();
    const [s0, c0] = [await h.ccm!.sample(), (await h.counters())!];
    const windowMs = h.spec.minutes * 60_000;
    await Promise.race([new Promise((r) => setTimeout(r, windowMs)), h.exitedEarly]);
    const t1 = Date.now();
    const [s1, c1] = [await h.ccm!.sample(), (await h.counters())!];
    const api = await readApiTraffic(h.files.auditLog, h.user.name, t1, t0);
    const min = (t1 - t0) / 60_000;
    return {
      startMs: t0,
      endMs: t1,
      latenciesMs: [],
      extra: {
        idleCpuPerMin: (s1.cpuSeconds - s0.cpuSeconds) / min,
        idleApiPerMin: api.total / min,
        idleCloudPerMin: (sum(c1.calls) - sum(c0.calls)) / min,
        idleRssMiB: s1.rssBytes / 2 ** 20,
      },
    };
  },
};

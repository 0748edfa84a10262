/**
 * W3, UpdateLoadBalancer fan-out when Nodes join (KEP-3458's node-set sync): N initialized Nodes and M
 * LoadBalancer Services exist before the CCM starts; once every balancer holds the N hosts, K Nodes
 * join one at a time (each waits until every balancer holds it: exactly M UpdateLoadBalancer calls per
 * Node in k8s.io/cloud-provider controllers/service/controller.go nodeSyncService), then K more in one
 * burst (parallel creates; how many syncs a burst takes depends on how the Node events fall, so the
 * burst's count is reported, not required to match). Wall: the burst, first create → every balancer
 * holds every Node; latency: one-at-a-time joins, create → fan-out done (resolution ≈ 50 ms).
 */
import type { V1Service } from '@kubernetes/client-node';
import { makeNode, nodeName, serviceConverged, serviceName, BENCH_NAMESPACE } from '../objects.ts';
import { waitForQuiet } from '../audit.ts';
import { qpsTimeout, range, SIZE, type Workload } from './workload.ts';

const calls = (c: { calls: Record<string, number> }, m: string) => c.calls[m] ?? 0;

export const w3: Workload = {
  id: 'W3',
  title:
    'W3: Nodes join under M LoadBalancer Services (K one at a time, then K in a burst; wall: the burst until every balancer holds every Node; p50/p90: one-at-a-time joins until fanned out)',
  sizes: [SIZE.N, SIZE.M, SIZE.K, SIZE.c],
  controllers: 'cloud-node-controller,service-lb-controller',
  // The harness polls the counters to see each fan-out finish.
  env: () => ({ FAKEBENCH_COUNTERS_INTERVAL_MS: '25' }),
  columns: [
    { key: 'updateLbStart', label: 'UpdateLB at start', digits: 0 },
    { key: 'updateLbSteps', label: 'UpdateLB one-at-a-time (= M×K)', digits: 0 },
    { key: 'updateLbBurst', label: 'UpdateLB burst', digits: 0 },
  ],
  timeoutMs: (s) => qpsTimeout(s.nodes + s.services * 2 + 2 * s.k, s.qps) + s.k * 10_000,
  async drive(h) {
    const { nodes: n, services: m, k } = h.spec;
    await h.createNodes(range(n).map((i) => makeNode(i, true)));
    await h.createNamespace();
    await h.createServices(m);
    const names = range(m).map(serviceName);
    const obs = await h.observe<V1Service>(`/api/v1/namespaces/${BENCH_NAMESPACE}/services`, serviceConverged, names);
    h.spawnCcm();
    await h.waitAll(obs);
    const hosts = (nodes: number) => (c: { lbHostsTotal: number; loadBalancers: number }) =>
      c.loadBalancers === m && c.lbHostsTotal === m * nodes;
    await h.waitCounters(`${m} balancers with ${n} hosts`, hosts(n));
    await waitForQuiet(h.files.auditLog, h.user.name, 2_000, 60_000);
    const c0 = (await h.counters())!;
    const latenciesMs: number[] = [];
    for (let j = 0; j < k; j++) {
      const t = Date.now();
      await h.createNodes([makeNode(n + j, true)]);
      await h.waitCounters(`the fan-out of ${nodeName(n + j)}`, hosts(n + j + 1));
      latenciesMs.push(Date.now() - t);
    }
    await waitForQuiet(h.files.auditLog, h.user.name, 2_000, 60_000);
    const c1 = (await h.counters())!;
    const startMs = Date.now();
    await h.createNodes(range(k, n + k).map((i) => makeNode(i, true)));
    await h.waitCounters('the burst fan-out', hosts(n + 2 * k));
    const endMs = Date.now();
    const steps = calls(c1, 'UpdateLoadBalancer') - calls(c0, 'UpdateLoadBalancer');
    return {
      startMs,
      endMs,
      latenciesMs,
      extra: { updateLbStart: calls(c0, 'UpdateLoadBalancer'), updateLbSteps: steps },
      finalize: (f) => ({ updateLbBurst: calls(f, 'UpdateLoadBalancer') - calls(c1, 'UpdateLoadBalancer') }),
      parity: { updateLoadBalancerOneAtATime: String(steps) },
    };
  },
  verify: (spec, c) => {
    const want = spec.services * (spec.nodes + 2 * spec.k);
    return c.lbHostsTotal === want ? [] : [`balancers hold ${c.lbHostsTotal} hosts in total, expected ${want}`];
  },
};

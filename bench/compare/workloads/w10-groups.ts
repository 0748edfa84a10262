/**
 * W10, shared load balancers (`N:S:G:c`): N initialized Nodes and S LoadBalancer Services exist before the CCM
 * starts, Service i in load-balancer group `g<i mod G>` (the label bench/fakebench-groups.ts reads). fakebench refuses a load-balancer call on a group another
 * call is changing (409, counted as `conflicts`), as a cloud that puts a group's Services on one balancer does.
 *
 * ccm-kit runs at `--concurrent-service-syncs=c` with its fakebench offering `loadBalancerGroup` (the group label):
 * the service controller never calls the cloud for two Services of one group at once. Go has no such notion and
 * runs at `--concurrent-service-syncs=1` (what a vendor of shared balancers must run: `go` row) and at `c`
 * (`go-at-c` row: the conflicts that force 1; a refused Service is retried with upstream's backoff, 5 s doubling).
 *
 * Converged (`convergedS`, also the wall column): the CCM's first cloud call (its controllers running; so the
 * start-up of the process is not counted) → every Service has an ingress (harness watch) and every balancer holds
 * the N hosts. Then, once the API is quiet, 20 initialized Nodes join in a burst; `hostUpdateS`: first create →
 * every balancer holds N + 20 hosts. Latency p50/p90: first cloud call → each Service's ingress. The config's
 * client QPS defaults to 1000/2000 (not `--qps`), so that the API's rate limit does not hide the cloud's
 * serialization.
 */
import type { V1Service } from '@kubernetes/client-node';
import { GROUP_LABEL } from '../../fakebench-groups.ts';
import { waitForQuiet } from '../audit.ts';
import { BENCH_NAMESPACE, makeNode, makeService, serviceConverged, serviceName } from '../objects.ts';
import { qpsTimeout, range, SIZE, type Workload } from './workload.ts';

/** Nodes that join in the host-update burst. */
export const W10_JOINS = 20;

/** Benchmark Service `i` in group `g<i mod groups>`. */
export function groupedService(i: number, groups: number): V1Service {
  const svc = makeService(i);
  svc.metadata!.labels = { ...svc.metadata!.labels, [GROUP_LABEL]: `g${i % groups}` };
  return svc;
}

export const w10: Workload = {
  id: 'W10',
  title:
    'W10: Shared load balancers (S LoadBalancer Services in G groups and N initialized Nodes before the CCM starts; fakebench answers an overlapping call on one group with a 409; ccm-kit at c with groups, Go at 1 and at c; wall = converged s: the first cloud call → every ingress and every balancer with the N hosts; host update s: 20 Nodes join in a burst → every balancer holds them; p50/p90: first cloud call → ingress)',
  sizes: [SIZE.N, SIZE.S2, SIZE.G, SIZE.c],
  controllers: 'cloud-node-controller,service-lb-controller',
  // `go`: what a vendor of shared balancers must run; the `go-at-c` row keeps the config's c (the shared flag).
  flags: (spec) => (spec.impl.id === 'go' ? ['--concurrent-service-syncs=1'] : []),
  env: (spec) => ({
    ...(spec.impl.id === 'ts' ? { FAKEBENCH_GROUPS: '1' } : {}),
    FAKEBENCH_COUNTERS_INTERVAL_MS: '50',
  }),
  qps: { qps: 1000, burst: 2000 },
  columns: [
    { key: 'convergedS', label: 'converged s', digits: 2 },
    { key: 'hostUpdateS', label: 'host update s', digits: 2 },
    { key: 'conflicts', label: 'conflicts (409)', digits: 0 },
    { key: 'groups', label: 'groups', digits: 0 },
  ],
  // Go at 1 makes S ensures and S × … host updates one at a time; Go at c retries refused Services with backoff.
  timeoutMs: (s) => qpsTimeout(s.nodes + 2 * s.services, s.qps) + 600_000 + s.services * s.latencyMs * 4,
  async drive(h) {
    const { nodes, services, groups } = h.spec;
    await h.createNodes(range(nodes).map((i) => makeNode(i, true)));
    await h.createNamespace();
    await h.createServices(services, undefined, (i) => groupedService(i, groups));
    const names = range(services).map(serviceName);
    const obs = await h.observe<V1Service>(`/api/v1/namespaces/${BENCH_NAMESPACE}/services`, serviceConverged, names);
    h.spawnCcm();
    await h.waitAll(obs);
    const hosts = (n: number) => (c: { loadBalancers: number; lbHostsTotal: number }) =>
      c.loadBalancers === services && c.lbHostsTotal === services * n;
    const converged = await h.waitCounters(`${services} balancers with ${nodes} hosts`, hosts(nodes));
    const startMs = converged.firstCallMs;
    const convergedAtMs = Math.max(converged.timeMs, ...names.map((n) => obs.convergedAt.get(n)!));
    await waitForQuiet(h.files.auditLog, h.user.name, 2_000, 60_000);

    const joinAtMs = Date.now();
    await h.createNodes(range(W10_JOINS, nodes).map((i) => makeNode(i, true)));
    const updated = await h.waitCounters(`every balancer with ${nodes + W10_JOINS} hosts`, hosts(nodes + W10_JOINS));
    return {
      startMs,
      endMs: convergedAtMs,
      latenciesMs: names.map((n) => Math.max(0, obs.convergedAt.get(n)! - startMs)),
      extra: {
        convergedS: (convergedAtMs - startMs) / 1000,
        hostUpdateS: (updated.timeMs - joinAtMs) / 1000,
        groups,
      },
      finalize: (f) => ({ conflicts: f.conflicts }),
    };
  },
  verify: (spec, c) => {
    const want = spec.services * (spec.nodes + W10_JOINS);
    return c.lbHostsTotal === want ? [] : [`balancers hold ${c.lbHostsTotal} hosts in total, expected ${want}`];
  },
};

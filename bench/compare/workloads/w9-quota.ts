/**
 * W9, cloud quota (`N:M:J:S:rps`): N initialized Nodes and M LoadBalancer Services exist before the CCM
 * starts (cloud-node and service-lb controllers) and converge as in W8 (every ingress, every balancer holding
 * the N hosts, the status pass asked about every Node, the API quiet) without a quota. Then the window: the
 * harness sends SIGUSR2 and from that moment fakebench allows `rps` cloud calls a second (token bucket, burst
 * = rps; beyond it a 429 with `Retry-After: 1`, bench/fakebench-quota.ts), J uninitialized Nodes join (one
 * every 100 ms, as kubelets register them) and S new LoadBalancer Services are created, spread evenly over
 * the joins. ccm-kit runs with its cloud budget at the same rate (`--cloud-api-qps=rps --cloud-api-burst=rps`);
 * Go has no such flag. The set-up runs without the quota because upstream's service queue retries a failed
 * balancer after 5 s doubling to 300 s: under the quota Go's set-up of hundreds of balancers would take tens
 * of minutes; ccm-kit's budget holds its own set-up to `rps` regardless.
 *
 * Converged when every new Service has an ingress, every joined Node is initialized and every balancer holds
 * every Node (counters: M + S balancers with (M + S) × (N + J) hosts), at most {@link WINDOW_CAP_MS} after
 * the window opened (then `convergedS` is left empty and the run says so). Wall = `convergedS`: window
 * start → converged; p50/p90: the new Services, create → ingress seen. The window's cloud calls (every
 * call fakebench received, 429s included, but not `GetLoadBalancerName`, which is no request) and 429s are
 * counted from the window's start until the CCM is quiet after convergence (no API request for 2 s).
 */
import type { V1Node, V1Service } from '@kubernetes/client-node';
import type { CounterLine } from '../../fakebench.ts';
import { waitForQuiet } from '../audit.ts';
import {
  BENCH_NAMESPACE,
  makeNode,
  makeService,
  nodeConverged,
  nodeName,
  serviceConverged,
  serviceName,
} from '../objects.ts';
import { quantile } from '../stats.ts';
import { createCluster, spawnAndConverge } from './converged.ts';
import { range, SIZE, type Workload } from './workload.ts';

/** One Node joins every this many ms. */
export const JOIN_INTERVAL_MS = 100;
/** The window gives up waiting for convergence after this long (ms) and reports what it saw. */
export const WINDOW_CAP_MS = 10 * 60_000;

/**
 * When (ms after the window opens) each of `joins` Nodes and `services` Services is created: a Node every
 * {@link JOIN_INTERVAL_MS}, the Services evenly over the same span, the first half an interval in.
 */
export function w9Schedule(joins: number, services: number): { nodesAtMs: number[]; servicesAtMs: number[] } {
  const span = Math.max(joins, 1) * JOIN_INTERVAL_MS;
  return {
    nodesAtMs: range(joins).map((j) => j * JOIN_INTERVAL_MS),
    servicesAtMs: range(services).map((i) => Math.round(((i + 0.5) * span) / services)),
  };
}

/** Cloud requests in a counters line: every counted method but `GetLoadBalancerName` (answered locally). */
export function cloudRequests(c: Pick<CounterLine, 'calls'>): number {
  return Object.entries(c.calls).reduce((sum, [m, n]) => (m === 'GetLoadBalancerName' ? sum : sum + n), 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const calls = (c: CounterLine, m: string) => (c.calls as Record<string, number>)[m] ?? 0;

export const w9: Workload = {
  id: 'W9',
  title:
    'W9: Cloud quota (N Nodes and M LoadBalancer Services converged; then the cloud allows rps calls a second, J uninitialized Nodes join one every 100 ms and S new LoadBalancer Services are created; wall: window start → every new Service has an ingress, every joined Node is initialized and every balancer holds every Node; p50/p90: new Services, create → ingress)',
  sizes: [SIZE.N, SIZE.M, SIZE.J, SIZE.newS, SIZE.rps],
  controllers: 'cloud-node-controller,service-lb-controller',
  // ccm-kit's cloud budget at the cloud's rate; the Go CCM has nothing of the kind.
  flags: (spec) =>
    spec.impl.id === 'ts' ? [`--cloud-api-qps=${spec.cloudRps}`, `--cloud-api-burst=${spec.cloudRps}`] : [],
  env: (spec) => ({
    FAKEBENCH_RPS: String(spec.cloudRps),
    FAKEBENCH_RPS_FROM: 'signal',
    FAKEBENCH_COUNTERS_INTERVAL_MS: '100',
  }),
  columns: [
    { key: 'timeToIngressP50S', label: 'new Services: ingress p50 s', digits: 2 },
    { key: 'timeToIngressP99S', label: 'ingress p99 s', digits: 2 },
    { key: 'cloudThrottled', label: '429s', digits: 0 },
    { key: 'windowCloudCalls', label: 'cloud calls in the window', digits: 0 },
    { key: 'windowUpdateLoadBalancer', label: 'of them UpdateLB', digits: 0 },
    { key: 'windowEnsureLoadBalancer', label: 'EnsureLB', digits: 0 },
    { key: 'windowInstanceMetadata', label: 'InstanceMetadata', digits: 0 },
    { key: 'convergedS', label: 'converged s', digits: 1 },
    { key: 'setupS', label: 'set-up s', digits: 1 },
  ],
  timeoutMs: (s) => 300_000 + ((s.nodes + s.services) / Math.max(s.cloudRps, 1)) * 2000,
  async drive(h) {
    const { nodes: n, services: m, k: j, newServices: s } = h.spec;
    await createCluster(h);
    const { spawnedAtMs } = await spawnAndConverge(h, { routes: false });
    const newServices = range(s, m).map(serviceName);
    const joined = range(j, n).map((i) => nodeName(i));
    const svcObs = await h.observe<V1Service>(
      `/api/v1/namespaces/${BENCH_NAMESPACE}/services`,
      serviceConverged,
      newServices,
    );
    const nodeObs = await h.observe<V1Node>('/api/v1/nodes', nodeConverged, joined);

    // The window: the quota starts, Nodes join and Services are created on schedule.
    const c0 = (await h.counters())!;
    h.ccm!.child.kill('SIGUSR2');
    const t0 = Date.now();
    const createdAt = new Map<string, number>();
    const { nodesAtMs, servicesAtMs } = w9Schedule(j, s);
    const at = (ms: number, fn: () => Promise<void>) => sleep(Math.max(0, t0 + ms - Date.now())).then(fn);
    const creates = Promise.all([
      ...nodesAtMs.map((ms, x) => at(ms, () => h.createNodes([makeNode(n + x, false)]))),
      ...servicesAtMs.map((ms, x) =>
        at(ms, async () => {
          const body = makeService(m + x);
          await h.core.createNamespacedService({ namespace: BENCH_NAMESPACE, body });
          createdAt.set(body.metadata!.name!, Date.now());
        }),
      ),
    ]);
    await Promise.race([creates, h.exitedEarly]);

    const lbs = m + s;
    const hosts = lbs * (n + j);
    let convergedAtMs: number | undefined;
    while (Date.now() - t0 < WINDOW_CAP_MS) {
      const c = await h.counters();
      if (
        c?.loadBalancers === lbs &&
        c.lbHostsTotal === hosts &&
        svcObs.convergedCount() === s &&
        nodeObs.convergedCount() === j
      ) {
        convergedAtMs = Math.max(
          c.timeMs,
          ...svcObs.convergedAt.values(),
          ...joined.map((x) => nodeObs.convergedAt.get(x)!),
        );
        break;
      }
      if (!h.ccm!.running) await h.exitedEarly;
      await sleep(100);
    }
    await waitForQuiet(h.files.auditLog, h.user.name, 2_000, 60_000);
    const c1 = (await h.counters())!;
    const latenciesMs = newServices
      .filter((x) => svcObs.convergedAt.has(x))
      .map((x) => svcObs.convergedAt.get(x)! - createdAt.get(x)!);
    const window = (method: string) => calls(c1, method) - calls(c0, method);
    return {
      startMs: t0,
      endMs: convergedAtMs ?? NaN,
      latenciesMs,
      extra: {
        timeToIngressP50S: quantile(latenciesMs, 0.5) / 1000,
        timeToIngressP99S: latenciesMs.length === s ? quantile(latenciesMs, 0.99) / 1000 : NaN,
        cloudThrottled: c1.throttled - c0.throttled,
        windowCloudCalls: cloudRequests(c1) - cloudRequests(c0),
        windowUpdateLoadBalancer: window('UpdateLoadBalancer'),
        windowEnsureLoadBalancer: window('EnsureLoadBalancer'),
        windowInstanceMetadata: window('InstanceMetadata'),
        convergedS: convergedAtMs === undefined ? NaN : (convergedAtMs - t0) / 1000,
        setupS: (t0 - spawnedAtMs) / 1000,
        newServicesWithIngress: latenciesMs.length,
      },
    };
  },
  verify: (spec, c) => {
    const want = (spec.services + spec.newServices) * (spec.nodes + spec.k);
    return c.lbHostsTotal === want
      ? []
      : [
          `not converged within ${WINDOW_CAP_MS / 60_000} min: the balancers hold ${c.lbHostsTotal} hosts in total, expected ${want}`,
        ];
  },
};

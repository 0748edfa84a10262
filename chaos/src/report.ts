/** The human-readable report of a run: one table of invariants and figures, then violations if any. */
import type { ChaosResult } from './chaos.ts';
import { DEPOSED_EXIT_BOUND_MS, DEPOSED_LOST_BOUND_MS, DEPOSED_MAX_LOG_LINES } from './deposed.ts';

const s = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
const list = (xs: (number | undefined)[]) => (xs.length ? xs.map(s).join(', ') : '—');

export function formatReport(r: ChaosResult): string {
  const count = (k: string) => r.faults.filter((f) => f.kind === k && !f.detail?.startsWith('skipped')).length;
  const okOps = r.ops.filter((o) => o.ok).length;
  const rows: [string, string, string][] = [
    ['seed', String(r.seed), ''],
    ['profile', r.ipam ? `${r.profile}, with node IPAM` : r.profile, ''],
    ['fault phase', s(r.faultPhaseMs), ''],
    ['operations', `${r.ops.length} (${okOps} ok, ${r.ops.length - okOps} failed during outages)`, ''],
    ['Services created / Nodes registered', `${r.servicesCreated} / ${r.nodesRegistered}`, ''],
    [
      'faults',
      `kube-apiserver restarts ${count('apiserver-restart')}, etcd restarts ${count('etcd-restart')}, leader SIGKILL ${count('leader-sigkill')}, SIGTERM ${count('leader-sigterm')}, SIGSTOP/SIGCONT ${count('leader-sigstop')}, watch cuts ${count('watch-cut')}, 429 bursts ${count('cloud-429-burst')}, Service force-deleted while the leader was stopped ${count('orphan-force-delete')}, class changed while the leader was stopped ${count('orphan-class-change')}`,
      '',
    ],
    ['cloud calls (failed or throttled)', `${r.safety.cloudCalls} (${r.safety.cloudCallsFailed})`, ''],
    ['CCM processes started', String(r.ccmProcesses), ''],
    [
      'leaked load balancers',
      String(r.converged.leakedLoadBalancers),
      r.converged.leakedLoadBalancers === 0 ? 'PASS' : 'FAIL',
    ],
    [
      'LoadBalancer Services with one LB and ingress',
      pass(r, ['one load balancer per LoadBalancer Service', 'ingress in status']),
      '',
    ],
    [
      'load balancers for refused Services (source ranges mockcloud does not enforce; decision 0205)',
      `${byInv(r, 'no load balancer for a refused Service')} (${r.rangedServicesCreated} created asking for source ranges, ${r.converged.refusedServices} still refused at the end)`,
      byInv(r, 'no load balancer for a refused Service') ? 'FAIL' : 'PASS',
    ],
    [
      'stale cleanup finalizers',
      String(byInv(r, 'no stale cleanup finalizer')),
      byInv(r, 'no stale cleanup finalizer') ? 'FAIL' : 'PASS',
    ],
    [
      'finalizers kept on Services of another class (decision 0051)',
      r.converged.finalizersOfOtherClass.length ? r.converged.finalizersOfOtherClass.join(', ') : '0',
      r.converged.finalizersOfOtherClass.length ? 'KNOWN' : '',
    ],
    [
      'Nodes wrongly deleted (machine existed)',
      `${r.safety.wronglyDeletedNodes} of ${r.safety.nodesDeletedByCcm} deleted by CCMs`,
      r.safety.wronglyDeletedNodes ? 'FAIL' : 'PASS',
    ],
    [
      'Nodes of deleted machines left',
      String(byInv(r, 'Node of a deleted machine is deleted')),
      byInv(r, 'Node of a deleted machine is deleted') ? 'FAIL' : 'PASS',
    ],
    ...(r.ipam
      ? ([
          [
            'node IPAM: Nodes without a Pod CIDR / Pod CIDRs on two Nodes',
            `${byInv(r, 'every Node allocated a Pod CIDR')} / ${byInv(r, 'no Pod CIDR on two Nodes')} (${r.converged.allocatedNodes ?? 0} Nodes allocated)`,
            byInv(r, 'every Node allocated a Pod CIDR') + byInv(r, 'no Pod CIDR on two Nodes') ? 'FAIL' : 'PASS',
          ],
        ] as [string, string, string][])
      : []),
    [
      'Nodes not initialized',
      String(byInv(r, 'every Node initialized')),
      byInv(r, 'every Node initialized') ? 'FAIL' : 'PASS',
    ],
    [
      'shutdown taints wrong',
      String(byInv(r, 'shutdown taint on stopped machines') + byInv(r, 'no shutdown taint on running machines')),
      byInv(r, 'shutdown taint on stopped machines') + byInv(r, 'no shutdown taint on running machines')
        ? 'FAIL'
        : 'PASS',
    ],
    [
      'cloud calls from non-holders',
      `${r.safety.nonHolderCloudCalls} (start-up checks before campaigning: ${r.safety.startupCloudCalls})`,
      r.safety.nonHolderCloudCalls ? 'FAIL' : 'PASS',
    ],
    [
      'overlapping load-balancer calls on one group (decision 0207)',
      `${r.safety.groupOverlaps} of ${r.safety.groupCalls}`,
      r.safety.groupOverlaps ? 'FAIL' : 'PASS',
    ],
    [
      'API writes from non-holders',
      `${r.safety.nonHolderApiWrites} of ${r.safety.apiWritesByCcms}`,
      r.safety.nonHolderApiWrites ? 'FAIL' : 'PASS',
    ],
    [
      'API server back → informers in sync (each CCM running through it; first CCM of any)',
      r.resync
        .map((x) => `${x.ms.length ? x.ms.map(s).join(' / ') : 'no CCM ran through it'}; first ${s(x.firstMs)}`)
        .join(' | ') || '—',
      resyncVerdict(r),
    ],
    ['API server back → new Node initialized', list(r.recoveryMs.map((x) => x.ms)), ''],
    [
      `deposed leader exited cleanly within ${DEPOSED_EXIT_BOUND_MS / 1000} s ("leaderelection lost" ≤ ${DEPOSED_LOST_BOUND_MS / 1000} s, status 1, ≤ ${DEPOSED_MAX_LOG_LINES} lines)`,
      r.deposed.length
        ? r.deposed.map((d) => `lost ${s(d.lostMs)}, exit ${s(d.exitMs)}, ${d.linesAfterResume} lines`).join('; ')
        : 'no leader resumed after a takeover',
      r.deposed.length ? (byInv(r, 'deposed leader exits cleanly') ? 'FAIL' : 'PASS') : '',
    ],
    [
      'orphaned load balancers after settling',
      String(r.converged.orphanedLoadBalancers),
      r.converged.orphanedLoadBalancers ? 'FAIL' : 'PASS',
    ],
    [
      'load balancers deleted by service-lb-gc-controller (whose Service existed)',
      `${r.collectorDeletions.length} (${byInv(r, 'no load balancer deleted by the collector whose Service exists')})`,
      byInv(r, 'no load balancer deleted by the collector whose Service exists') ? 'FAIL' : 'PASS',
    ],
    ['Warning Events from fence refusals', String(r.refusalEvents.length), r.refusalEvents.length ? 'FAIL' : 'PASS'],
    ['leader fault → next leader holds the lease', list(r.failover.map((x) => x.leaseMs)), ''],
    ["leader fault → next leader's first cloud call", list(r.failover.map((x) => x.firstActionMs)), ''],
    ['time to settle after faults stop', s(r.settleMs), r.settleMs === undefined ? 'FAIL' : 'PASS'],
  ];
  const w0 = Math.max(...rows.map((x) => x[0].length));
  const w1 = Math.max(...rows.map((x) => x[1].length));
  const lines = rows.map(([a, b, c]) => `${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`.trimEnd());
  lines.push(
    '',
    r.ok
      ? 'RESULT: PASS'
      : `RESULT: FAIL (seed ${r.seed}; rerun: npm run chaos -- --profile ${r.profile} --seed ${r.seed})`,
  );
  if (!r.ok) {
    lines.push('', 'Violations:');
    for (const v of r.violations.slice(0, 40)) lines.push(`  - ${v.invariant}: ${v.object}: ${v.detail}`);
    const objects = new Set(r.violations.map((v) => v.object));
    lines.push('', 'Operations on those objects, and the faults:');
    const events = [
      ...r.ops
        .filter((o) => [...objects].some((x) => x && o.target.split(':')[0] === x))
        .map((o) => ({ t: o.t, text: `op #${o.seq} ${o.op} ${o.target}${o.ok ? '' : ` (failed: ${o.error})`}` })),
      ...r.faults.map((f) => ({
        t: f.t,
        text: `fault ${f.kind}${f.identity ? ` on ${f.identity}` : ''}${f.detail ? ` (${f.detail})` : ''}`,
      })),
    ].sort((a, b) => a.t - b.t);
    for (const e of events.slice(-80)) lines.push(`  ${new Date(e.t).toISOString()}  ${e.text}`);
    lines.push('', `CCM logs and the audit log: ${r.dir}`);
  }
  return lines.join('\n');
}

/** FAIL when no CCM was in sync within 60 s of an outage; SLOW when one that ran through took over 5 s. */
function resyncVerdict(r: ChaosResult): string {
  if (byInv(r, 'informers in sync after an API server restart')) return 'FAIL';
  const all = r.resync.flatMap((x) => x.ms);
  if (!all.length) return '';
  return all.every((ms) => ms !== undefined && ms <= 5_000) ? 'PASS' : 'SLOW';
}

function byInv(r: ChaosResult, invariant: string): number {
  return r.violations.filter((v) => v.invariant === invariant).length;
}

function pass(r: ChaosResult, invariants: string[]): string {
  const bad = invariants.reduce((n, i) => n + byInv(r, i), 0);
  return bad ? `FAIL (${bad})` : `PASS (${r.converged.loadBalancerServices} Services)`;
}

/**
 * One chaos run: cluster and cloud up, CCMs started, initial Nodes and Services, then the fault phase
 * (random operations from several workers while the scheduled faults happen), then faults stop, the run
 * settles, and the invariants and figures are computed.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { startCluster } from './cluster.ts';
import { FaultRunner, faultSchedule, type FaultRecord } from './faults.ts';
import { fleetFor } from './fleet.ts';
import { checkConverged, checkSafety, type Converged, ipamFlags, type Safety, type Violation } from './invariants.ts';
import { type DeposedExit, deposedExits, deposedExitViolations, refusalWarningEvents } from './deposed.ts';
import { LeaseHistory, type Term, termsFromAudit } from './lease-history.ts';
import { type CollectorDeletion, collectorDeletions, collectorFlags, collectorViolations } from './orphans.ts';
import { leaseDurationMs, type Profile } from './profiles.ts';
import { type Resync, resyncFromAudit, resyncViolations } from './resync.ts';
import { Rng } from './rng.ts';
import { type OpRecord, Workload } from './workload.ts';

export interface ChaosResult {
  seed: number;
  profile: Profile['name'];
  /** The CCMs also ran node-ipam-controller (`--ipam`). */
  ipam: boolean;
  ok: boolean;
  dir: string;
  faultPhaseMs: number;
  ops: OpRecord[];
  servicesCreated: number;
  /** Of those, Services asking for source ranges mockcloud does not enforce (refused). */
  rangedServicesCreated: number;
  nodesRegistered: number;
  faults: FaultRecord[];
  /** Per API-server/etcd restart: ms from healthy to a new Node initialized by the CCMs. */
  recoveryMs: { kind: string; ms: number | undefined }[];
  /** Per kube-apiserver restart: ms from healthy to the informers in sync, per CCM that ran through it and first of any. */
  resync: Resync[];
  /** Per leader fault: ms to the next holder's lease, and to its first cloud call or API write. */
  failover: { kind: string; leaseMs: number | undefined; firstActionMs: number | undefined }[];
  /** ms from the end of the fault phase until every converged-state invariant held (undefined: never). */
  settleMs: number | undefined;
  converged: Converged;
  safety: Safety;
  /** Each leader resumed after another took the lease: how it exited (docs/decisions/0052-fenced-leader-exits.md). */
  deposed: DeposedExit[];
  /** Warning Events whose message is a fence refusal (must be none). */
  refusalEvents: string[];
  /** Load balancers deleted by service-lb-gc-controller (profiles that run it). */
  collectorDeletions: CollectorDeletion[];
  violations: Violation[];
  terms: Term[];
  ccmProcesses: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** What a run adds to its profile. */
export interface ChaosOptions {
  /** The CCMs also run node-ipam-controller (Nodes register without Pod CIDRs, as always). */
  ipam?: boolean;
}

export async function runChaos(
  profile: Profile,
  seed: number,
  log: (line: string) => void = () => {},
  options: ChaosOptions = {},
): Promise<ChaosResult> {
  const rng = new Rng(seed);
  const cloudRng = rng.fork();
  const dir = await mkdtemp(join(tmpdir(), `ccm-chaos-${seed}-`));
  const cluster = await startCluster({ dir, slots: profile.ccms, random: () => cloudRng.next() });
  const extraControllers = [
    ...(profile.loadBalancerCollector ? ['service-lb-gc-controller'] : []),
    ...(options.ipam ? ['node-ipam-controller'] : []),
  ];
  const extraArgs = [
    ...(extraControllers.length ? [`--controllers=*,${extraControllers.join(',')}`] : []),
    ...(profile.loadBalancerCollector ? collectorFlags : []),
    ...(options.ipam ? ipamFlags : []),
  ];
  const fleet = fleetFor(cluster, profile.ccms, dir, extraArgs);
  const check = () => checkConverged(cluster.cp.kubeConfig, cluster.cloud, workload, { ipam: options.ipam ?? false });
  const lease = new LeaseHistory(cluster.cp.kubeConfig);
  const workload = new Workload(cluster.cp.kubeConfig, cluster.cloud);
  const faults = new FaultRunner(cluster, fleet, lease, workload);
  const recoveryMs: ChaosResult['recoveryMs'] = [];
  try {
    log(`run directory ${dir} (CCM logs, audit log)`);
    await workload.setup();
    lease.start();
    fleet.startAll();
    for (let i = 0; i < profile.initialNodes; i++) await workload.registerNode();
    for (let i = 0; i < profile.initialServices; i++) await workload.createService(rng);
    await waitFor(() => lease.currentHolder() !== '', 60_000);
    log(`leader elected; fault phase of ${Math.round(profile.faultPhaseMs / 1000)} s starts`);

    // Fault phase.
    const phaseStart = Date.now();
    const phaseEnd = phaseStart + profile.faultPhaseMs;
    faults.startCloudFaults(profile);
    const schedule = faultSchedule(profile, rng);
    const opRngs = Array.from({ length: profile.workers }, () => rng.fork());
    const pauseMs = (profile.faultPhaseMs * profile.workers) / profile.operations;
    const workers = opRngs.map(async (r) => {
      while (Date.now() < phaseEnd) {
        await workload.random(
          r,
          workload.servicesCreated < profile.minServices,
          workload.nodesRegistered < profile.minNodes,
        );
        await sleep(r.next() * pauseMs * 1.6);
      }
    });
    const faultLoop = (async () => {
      for (const f of schedule) {
        const wait = phaseStart + f.at - Date.now();
        if (wait > 0) await sleep(wait);
        log(`fault: ${f.kind}`);
        await faults.run(f.kind, async (rec) => {
          const probe = await workload.probeNode();
          const t0 = rec.endedAt ?? Date.now();
          const done = await waitFor(async () => {
            const n = await cluster.cp.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: probe });
            return !!n.spec?.providerID;
          }, 90_000);
          recoveryMs.push({ kind: rec.kind, ms: done ? Date.now() - t0 : undefined });
          workload.endProbe(probe);
        });
      }
    })();
    await Promise.all([...workers, faultLoop]);
    const faultPhaseMs = Date.now() - phaseStart;
    faults.stopCloudFaults();
    log(`fault phase over after ${Math.round(faultPhaseMs / 1000)} s, ${workload.ops.length} operations; settling`);

    // Settle.
    const settleStart = Date.now();
    await workload.reassertNodeStatus();
    let converged = await check();
    while (!converged.ok && Date.now() - settleStart < profile.settleTimeoutMs) {
      await sleep(1_000);
      converged = await check().catch(() => converged);
    }
    const settleMs = converged.ok ? Date.now() - settleStart : undefined;
    await sleep(1_000); // let the last polls and audit lines land
    lease.stop();
    const audit = await readFile(cluster.auditLogPath, 'utf8');
    const terms = termsFromAudit(audit, leaseDurationMs);
    // An etcd restart leaves the CCMs' watches to kube-apiserver, which keeps them open: only its own restarts count.
    const outages = faults.records.filter((r) => r.kind === 'apiserver-restart');
    const resync = resyncFromAudit(audit, outages, fleet.records, (slot) => cluster.slotName(slot));
    const safety = await checkSafety({
      auditLogPath: cluster.auditLogPath,
      cloud: cluster.cloud,
      fleet,
      terms,
      workload,
      slotOf: cluster.slotOf,
    });
    const failover = faults.records
      .filter((r) => r.identity !== undefined)
      .map((r) => {
        const next = terms.find((t) => t.holder !== r.identity && t.start >= r.t - 50);
        if (!next) return { kind: r.kind, leaseMs: undefined, firstActionMs: undefined };
        const slot = fleet.recordOf(next.holder)?.slot;
        const first = firstCloudCall(
          cluster.cloud.requests(),
          slot === undefined ? '' : cluster.slotName(slot),
          next.start,
        );
        return {
          kind: r.kind,
          leaseMs: next.start - r.t,
          firstActionMs: first === undefined ? undefined : first - r.t,
        };
      });
    const deposed = await deposedExits(faults.records, terms, (id) => fleet.recordOf(id));
    const refusalEvents = await refusalWarningEvents(cluster.cp.kubeConfig);
    const deletions = await collectorDeletions(fleet.records, cluster.cloud);
    const existingUids = new Set(
      (await cluster.cp.kubeConfig.makeApiClient(CoreV1Api).listServiceForAllNamespaces()).items.map(
        (x) => x.metadata?.uid ?? '',
      ),
    );
    const violations = [
      ...converged.violations,
      ...safety.violations,
      ...collectorViolations(deletions, workload, existingUids),
      ...deposed.flatMap(deposedExitViolations),
      ...resyncViolations(resync),
      ...refusalEvents.map((e) => ({
        invariant: 'no Warning Event from a fence refusal',
        object: e.split(':')[0]!,
        detail: e,
      })),
    ];
    await writeFile(
      join(dir, 'result.json'),
      JSON.stringify(
        { seed, terms, faults: faults.records, processes: fleet.records, ops: workload.ops, violations },
        null,
        1,
      ),
    );
    return {
      seed,
      profile: profile.name,
      ipam: options.ipam ?? false,
      ok: violations.length === 0,
      dir,
      faultPhaseMs,
      ops: workload.ops,
      servicesCreated: workload.servicesCreated,
      rangedServicesCreated: workload.rangedServicesCreated,
      nodesRegistered: workload.nodesRegistered,
      faults: faults.records,
      recoveryMs,
      resync,
      failover,
      settleMs,
      converged,
      safety,
      deposed,
      refusalEvents,
      collectorDeletions: deletions,
      violations,
      terms,
      ccmProcesses: fleet.records.length,
    };
  } finally {
    lease.stop();
    await fleet.stop();
    await cluster.stop();
  }
}

/** Epoch ms of the first cloud call by `caller` at or after `from`. */
function firstCloudCall(calls: { time: number; caller?: string }[], caller: string, from: number): number | undefined {
  return calls.find((c) => c.caller === caller && c.time >= from)?.time;
}

async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      if (await cond()) return true;
    } catch {
      // not yet (the API server may be starting)
    }
    await sleep(200);
  }
  return false;
}

/**
 * The fault schedule of a run: each fault at a seeded random moment of the fault phase, one at a time, plus
 * the cloud's faults (failure rate, latency, 429 bursts with Retry-After, slow provisioning) for the whole
 * phase. Each executed fault is logged with its time and what it measured.
 */
import type { Cluster } from './cluster.ts';
import type { Fleet } from './fleet.ts';
import type { LeaseHistory } from './lease-history.ts';
import { leaseDurationMs, type Profile } from './profiles.ts';
import { orphanAction, type OrphanFaultKind } from './orphans.ts';
import type { Rng } from './rng.ts';
import type { Workload } from './workload.ts';

export type FaultKind =
  | 'apiserver-restart'
  | 'etcd-restart'
  | 'leader-sigkill'
  | 'leader-sigterm'
  | 'leader-sigstop'
  | 'watch-cut'
  | 'cloud-429-burst'
  | OrphanFaultKind;

/** The faults that pause the leader (SIGSTOP, then SIGCONT after more than a lease duration). */
export const SIGSTOP_FAULTS: ReadonlySet<FaultKind> = new Set<FaultKind>([
  'leader-sigstop',
  'orphan-force-delete',
  'orphan-class-change',
]);

export interface FaultRecord {
  kind: FaultKind;
  /** Epoch ms when the fault started. */
  t: number;
  /** Epoch ms when the fault ended (the API server healthy again, the process resumed...). */
  endedAt?: number;
  /** The lease identity acted on (leader faults). */
  identity?: string;
  detail?: string;
  /** SIGSTOP/SIGCONT: lines the paused process had written when it was resumed. */
  linesAtResume?: number;
}

/** The faults of `profile` at seeded offsets (ms from the start of the phase), in time order. */
export function faultSchedule(profile: Profile, rng: Rng): { at: number; kind: FaultKind }[] {
  const kinds: FaultKind[] = [];
  const add = (k: FaultKind, n: number) => {
    for (let i = 0; i < n; i++) kinds.push(k);
  };
  const f = profile.faults;
  add('apiserver-restart', f.apiServerRestarts);
  add('etcd-restart', f.etcdRestarts);
  add('leader-sigkill', f.leaderSigkill);
  add('leader-sigterm', f.leaderSigterm);
  add('leader-sigstop', f.leaderSigstop);
  add('watch-cut', f.watchCuts);
  add('cloud-429-burst', profile.cloud.throttleBursts);
  add('orphan-force-delete', f.orphanForceDelete ?? 0);
  add('orphan-class-change', f.orphanClassChange ?? 0);
  // Shuffle (Fisher–Yates), then spread over the phase, leaving the last 10 % quiet.
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  const span = profile.faultPhaseMs * 0.9;
  const slot = span / kinds.length;
  return kinds.map((kind, i) => ({ at: Math.floor(i * slot + rng.next() * slot * 0.5), kind }));
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class FaultRunner {
  readonly records: FaultRecord[] = [];
  readonly cluster: Cluster;
  readonly fleet: Fleet;
  readonly lease: LeaseHistory;
  readonly workload: Workload | undefined;
  constructor(cluster: Cluster, fleet: Fleet, lease: LeaseHistory, workload?: Workload) {
    this.cluster = cluster;
    this.fleet = fleet;
    this.lease = lease;
    this.workload = workload;
  }

  /** The cloud's faults for the whole phase. */
  startCloudFaults(profile: Profile): void {
    const f = this.cluster.cloud.faults;
    f.failureRate = profile.cloud.failureRate;
    f.latencyMs = profile.cloud.latencyMs;
    this.cluster.cloud.state.provisioningDelayMs = profile.cloud.provisioningDelayMs;
  }

  stopCloudFaults(): void {
    this.cluster.cloud.clearFaults();
    this.cluster.cloud.state.provisioningDelayMs = 0;
  }

  /** Runs one fault; `onApiServerBack` is called when the API server is healthy again after a restart. */
  async run(kind: FaultKind, onApiServerBack: (rec: FaultRecord) => Promise<void>): Promise<void> {
    const rec: FaultRecord = { kind, t: Date.now() };
    switch (kind) {
      case 'apiserver-restart':
        this.records.push(rec);
        await this.cluster.cp.restartApiServer({ downMs: 2_000 });
        rec.endedAt = Date.now();
        await onApiServerBack(rec);
        return;
      case 'etcd-restart':
        this.records.push(rec);
        await this.cluster.cp.restartEtcd({ downMs: 1_000, graceMs: 2_000 });
        rec.endedAt = Date.now();
        await onApiServerBack(rec);
        return;
      case 'watch-cut':
        rec.detail = `${this.cluster.proxy.cut()} connections cut`;
        rec.endedAt = Date.now();
        this.records.push(rec);
        return;
      case 'cloud-429-burst':
        this.cluster.cloud.injectFault({ status: 429, retryAfterSeconds: 1, count: 25 });
        rec.detail = '25 answers 429, Retry-After: 1';
        rec.endedAt = Date.now();
        this.records.push(rec);
        return;
      default: {
        // An orphan fault needs a leader to stop: after another leader fault, wait for the next one.
        if (kind === 'orphan-force-delete' || kind === 'orphan-class-change') {
          const until = Date.now() + 60_000;
          while (!this.lease.currentHolder() && Date.now() < until) await sleep(200);
        }
        const holder = this.lease.currentHolder();
        const target = holder ? this.fleet.byIdentity(holder) : undefined;
        if (!target) {
          rec.detail = 'skipped: no running leader';
          this.records.push(rec);
          return;
        }
        let victim: string | undefined;
        if (kind === 'orphan-force-delete' || kind === 'orphan-class-change') {
          let error = '';
          victim = await this.workload?.claimServedService().catch((err: unknown) => {
            error = `: ${String((err as Error)?.message ?? err).slice(0, 120)}`;
            return undefined;
          });
          if (victim === undefined) {
            rec.detail = `skipped: no Service with a load balancer${error}`;
            this.records.push(rec);
            return;
          }
          rec.detail = victim;
        }
        rec.identity = holder;
        rec.t = Date.now();
        this.records.push(rec);
        if (kind === 'leader-sigkill') target.child.kill('SIGKILL');
        else if (kind === 'leader-sigterm') target.child.kill('SIGTERM');
        else if (victim !== undefined && this.workload) {
          // The Service changes while no CCM can see it: the leader is stopped and no other has the lease yet.
          target.child.kill('SIGSTOP');
          await orphanAction(kind as OrphanFaultKind, this.workload, victim);
          await sleep(leaseDurationMs + 3_000);
          rec.linesAtResume = target.record.lines;
          target.child.kill('SIGCONT');
          if (kind === 'orphan-class-change') this.workload.release(victim);
        } else {
          // Paused for longer than the lease: another replica takes over meanwhile.
          target.child.kill('SIGSTOP');
          await sleep(leaseDurationMs + 3_000);
          rec.linesAtResume = target.record.lines;
          target.child.kill('SIGCONT');
        }
        rec.endedAt = Date.now();
        // One leader fault at a time: the next one should hit the next leader.
        const until = Date.now() + 30_000;
        while (this.lease.currentHolder() === holder && Date.now() < until) await sleep(200);
      }
    }
  }
}

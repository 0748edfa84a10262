/**
 * Informer resync after a kube-apiserver restart, from the audit log: for each CCM process that ran through
 * the outage, the time from the server answering again until both its Node and its Service informers have a
 * successful list or watch again (a watch of the WatchList kind streams the initial state right after it
 * starts). That is the figure the reflector's fast recovery (decision 0032) is about; a new Node being
 * initialized also needs the leader to still hold the lease, so it is reported apart. Standbys, which start
 * their informers only on winning the lease, are not counted.
 *
 * When the restart outlasts the renew deadline, the leader loses the lease and exits and no CCM runs through it;
 * `firstMs` then still measures something: the time until the first CCM (whichever: one that ran through, the
 * new leader, a restarted process) has both informers in sync again, and {@link resyncViolations} fails an
 * outage after which none has within 60 s.
 */
import type { ProcessRecord } from './fleet.ts';
import type { Violation } from './invariants.ts';

interface AuditEntry {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string };
  responseStatus?: { code?: number };
  stageTimestamp?: string;
}

/** One restart: when it began and when the server answered again (epoch ms). */
export interface Outage {
  kind: string;
  t: number;
  endedAt?: number;
}

/** Per outage: ms from the server back to in sync, per process that ran through it (undefined: not within 60 s). */
export interface Resync {
  kind: string;
  ms: (number | undefined)[];
  /** ms from the server back to the first CCM of any kind with both informers in sync (undefined: none in 60 s). */
  firstMs: number | undefined;
}

const informers = ['nodes', 'services'];
const windowMs = 60_000;

/** The first time after `from` at which `user` had a successful list or watch of `resource`, or undefined. */
function firstSync(starts: Map<string, number[]>, user: string, resource: string, from: number): number | undefined {
  return starts.get(`${user} ${resource}`)?.find((t) => t > from);
}

export function resyncFromAudit(
  auditLog: string,
  outages: Outage[],
  processes: ProcessRecord[],
  slotName: (slot: number) => string,
): Resync[] {
  // user + resource → sorted times at which a list completed or a watch started, successfully.
  const starts = new Map<string, number[]>();
  for (const line of auditLog.split('\n')) {
    if (!line.includes('"list"') && !line.includes('"watch"')) continue;
    const e = JSON.parse(line) as AuditEntry;
    const resource = e.objectRef?.resource ?? '';
    if (!informers.includes(resource) || (e.responseStatus?.code ?? 0) !== 200) continue;
    const done =
      (e.verb === 'watch' && e.stage === 'ResponseStarted') || (e.verb === 'list' && e.stage === 'ResponseComplete');
    if (!done) continue;
    const key = `${e.user?.username ?? ''} ${resource}`;
    const list = starts.get(key) ?? [];
    list.push(new Date(e.stageTimestamp ?? 0).getTime());
    starts.set(key, list);
  }
  for (const list of starts.values()) list.sort((a, b) => a - b);

  return outages
    .filter((o) => o.endedAt !== undefined)
    .map((o) => {
      const back = o.endedAt!;
      // Processes whose informers ran before the outage (standbys start theirs only on winning the lease) and
      // that lived on for the window (a leader that lost the lease exits instead of resyncing).
      const through = processes.filter(
        (p) =>
          p.startedAt < o.t &&
          (p.exitedAt === undefined || p.exitedAt > back + windowMs) &&
          informers.every((r) => (firstSync(starts, slotName(p.slot), r, p.startedAt) ?? Infinity) < o.t),
      );
      const inSync = (slot: number): number | undefined => {
        const times = informers.map((r) => firstSync(starts, slotName(slot), r, o.t));
        if (times.some((t) => t === undefined || t > back + windowMs)) return undefined;
        // Watches may start again a little before `/healthz` answers ok: that counts as 0.
        return Math.max(0, Math.max(...(times as number[])) - back);
      };
      const ms = through.map((p) => inSync(p.slot));
      const any = [...new Set(processes.map((p) => p.slot))].map(inSync).filter((x) => x !== undefined);
      return { kind: o.kind, ms, firstMs: any.length ? Math.min(...any) : undefined };
    });
}

/** An outage after which no CCM had both informers in sync within 60 s: the cluster had no working CCM. */
export function resyncViolations(resync: readonly Resync[]): Violation[] {
  return resync
    .filter((r) => r.firstMs === undefined)
    .map((r) => ({
      invariant: 'informers in sync after an API server restart',
      object: r.kind,
      detail: `no CCM had its Node and Service informers in sync within ${windowMs / 1000} s of the API server answering`,
    }));
}

/**
 * Orphaned load balancers: the faults that make them and the invariant on service-lb-gc-controller
 * (docs/controllers/service-lb-gc-controller.md).
 *
 * - `orphan-force-delete`: the leader is stopped (SIGSTOP) for longer than the lease; meanwhile a Service with a
 *   load balancer loses its cleanup finalizer and is deleted. No CCM saw the deletion: the next leader's service
 *   controller never hears of the Service, and only the collector can delete its load balancer.
 * - `orphan-class-change`: the same pause; meanwhile a served Service goes LoadBalancer → ClusterIP →
 *   LoadBalancer of another class. Its load balancer is the service controller's to delete (decision 0051); the
 *   collector must leave it alone, since the Service exists.
 *
 * Invariant: every load balancer the collector deleted (its `Deleted orphaned load balancer` log line, the
 * DELETE in the cloud's request log) belonged to a Service the harness had deleted before that DELETE, and no
 * Service with its UID exists at the end. Service names are never reused in a run, so the name tells the
 * Service apart.
 */
import { readFile } from 'node:fs/promises';
import type { MockCloudApiServer } from '@ccm-kit/example-mockcloud/api-server';
import type { ProcessRecord } from './fleet.ts';
import type { Violation } from './invariants.ts';
import type { Workload } from './workload.ts';

export type OrphanFaultKind = 'orphan-force-delete' | 'orphan-class-change';

/** The collector's settings in the chaos runs: short, so that orphans go within the settle time. */
export const collectorFlags = ['--lb-gc-mode=delete', '--lb-gc-grace-period=10s', '--lb-gc-period=3s'] as const;

/** What the fault does to `victim` while the leader is stopped. */
export function orphanAction(kind: OrphanFaultKind, workload: Workload, victim: string): Promise<void> {
  return kind === 'orphan-force-delete' ? workload.forceDeleteService(victim) : workload.changeClass(victim);
}

/** One deletion by the collector. */
export interface CollectorDeletion {
  /** Epoch ms of the successful DELETE in the cloud's request log (undefined: none found). */
  t: number | undefined;
  loadBalancer: string;
  /** `namespace/name` of the recorded Service. */
  service: string;
  uid: string;
}

const DELETED = /"Deleted orphaned load balancer".*?loadBalancer="([^"]+)".*?service="([^"]+)".*?uid="([^"]+)"/;

/** Every `Deleted orphaned load balancer` line of the CCM logs, with the time of its DELETE in the cloud. */
export async function collectorDeletions(
  processes: readonly ProcessRecord[],
  cloud: MockCloudApiServer,
): Promise<CollectorDeletion[]> {
  const deletes = cloud.requests().filter((r) => r.method === 'DELETE' && r.status < 300);
  const out: CollectorDeletion[] = [];
  for (const p of processes) {
    const text = await readFile(p.logPath, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const m = DELETED.exec(line);
      if (!m) continue;
      const [, loadBalancer, service, uid] = m as unknown as [string, string, string, string];
      const t = deletes.find((r) => r.path === `/v1/load_balancers/${loadBalancer}`)?.time;
      out.push({ t, loadBalancer, service, uid });
    }
  }
  return out;
}

/** Violations of "no load balancer deleted by the collector whose Service exists". */
export function collectorViolations(
  deletions: readonly CollectorDeletion[],
  workload: Workload,
  existingUids: ReadonlySet<string>,
): Violation[] {
  const out: Violation[] = [];
  for (const d of deletions) {
    const name = d.service.split('/')[1] ?? d.service;
    const deletedAt = workload.serviceDeletedAt.get(name);
    const t = d.t ?? Number.POSITIVE_INFINITY;
    if (existingUids.has(d.uid) || deletedAt === undefined || deletedAt > t) {
      out.push({
        invariant: 'no load balancer deleted by the collector whose Service exists',
        object: name,
        detail: `${d.loadBalancer} (Service UID ${d.uid}) deleted at ${d.t ? new Date(d.t).toISOString() : 'unknown time'}; Service ${existingUids.has(d.uid) ? 'still exists' : deletedAt === undefined ? 'never deleted by the harness' : `deleted at ${new Date(deletedAt).toISOString()}`}`,
        ...(d.t ? { t: d.t } : {}),
      });
    }
  }
  return out;
}

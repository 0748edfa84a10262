/**
 * Fencing (docs/decisions/0050-lease-fencing.md) against real processes: the leader of two mockcloud CCMs is
 * paused with SIGSTOP for longer than the lease, right after taking over (while its initial sync is in full
 * flow), then resumed with SIGCONT while another process holds the lease. The resumed process must make no cloud
 * call and no API write after that — counted from the cloud's request log and the audit log — and, deposed by
 * its first refusal (docs/decisions/0052-fenced-leader-exits.md), exit with status 1 and upstream's
 * `"leaderelection lost"` line within a bound, quietly (few log lines), with no Warning Event about the refusal.
 * The fence is checked in the HTTP dispatcher just before each request is written; requests already written
 * when it was paused (the remaining window of decision 0050) can still be recorded right after it resumes; they
 * are allowed within 1 s of SIGCONT and reported in the assertion message.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { expect, it } from 'vitest';
import { startCluster } from '../src/cluster.ts';
import { fleetFor } from '../src/fleet.ts';
import { checkSafety } from '../src/invariants.ts';
import { deposedExit, deposedExitViolations, refusalWarningEvents } from '../src/deposed.ts';
import { LeaseHistory, termsFromAudit } from '../src/lease-history.ts';
import { leaseDurationMs } from '../src/profiles.ts';
import { Rng } from '../src/rng.ts';
import { Workload } from '../src/workload.ts';

it('a leader paused past its lease and resumed exits at once and quietly: no cloud call or API write after its in-flight requests', async () => {
  const rng = new Rng(7);
  const dir = await mkdtemp(join(tmpdir(), 'ccm-fencing-'));
  const cluster = await startCluster({ dir, slots: 2, random: () => 1 });
  const fleet = fleetFor(cluster, 2, dir);
  const lease = new LeaseHistory(cluster.cp.kubeConfig);
  const workload = new Workload(cluster.cp.kubeConfig, cluster.cloud);
  try {
    await workload.setup();
    lease.start();
    fleet.startAll();
    for (let i = 0; i < 4; i++) await workload.registerNode();
    for (let i = 0; i < 6; i++) await workload.createService(rng);
    await eventuallyValue(() => lease.currentHolder() !== '', {
      what: 'a lease holder',
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    const leader = fleet.byIdentity(lease.currentHolder());
    expect(leader).toBeDefined();
    // Slow cloud calls, so that some are in flight when the leader is paused.
    cluster.cloud.faults.latencyMs = 300;
    await sleep(1_000);
    leader!.child.kill('SIGSTOP');
    // Work the paused leader will see queued when it resumes.
    for (let i = 0; i < 8; i++) await workload.createService(rng);
    await workload.registerNode();
    await sleep(leaseDurationMs + 3_000);
    const linesAtResume = leader!.record.lines;
    const resumedAt = Date.now();
    leader!.child.kill('SIGCONT');
    await sleep(8_000);
    lease.stop();
    const terms = termsFromAudit(await readFile(cluster.auditLogPath, 'utf8'), leaseDurationMs);
    const safety = await checkSafety({
      auditLogPath: cluster.auditLogPath,
      cloud: cluster.cloud,
      fleet,
      terms,
      workload,
      slotOf: cluster.slotOf,
    });
    const inFlight = safety.violations.filter((v) => v.t !== undefined && v.t <= resumedAt + 1_000);
    const later = safety.violations.filter((v) => !inFlight.includes(v));
    expect(later, `in flight at the pause (allowed): ${JSON.stringify(inFlight.map((v) => v.detail))}`).toEqual([]);
    // Another process took over meanwhile, and the resumed one did try to act (and was refused).
    expect(terms.some((t) => t.holder !== leader!.record.identity && t.start < resumedAt)).toBe(true);
    const exit = await deposedExit(leader!.record, resumedAt, linesAtResume);
    console.log(`deposed leader: ${JSON.stringify(exit)}`);
    expect(deposedExitViolations(exit)).toEqual([]);
    expect(await refusalWarningEvents(cluster.cp.kubeConfig)).toEqual([]);
  } finally {
    lease.stop();
    await fleet.stop();
    await cluster.stop();
  }
}, 150_000);

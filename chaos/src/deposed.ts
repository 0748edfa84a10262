/**
 * Invariant: a leader paused (SIGSTOP) while another replica took the lease, then resumed (SIGCONT), exits
 * cleanly (docs/decisions/0052-fenced-leader-exits.md): it logs upstream's `"leaderelection lost"` within
 * {@link DEPOSED_LOST_BOUND_MS} of SIGCONT and exits with status 1 within {@link DEPOSED_EXIT_BOUND_MS} (as seen
 * by the parent: process teardown, compile-cache flush and the parent's own scheduling on a loaded machine
 * come on top of the manager's 1 s stop bound), having logged at most {@link DEPOSED_MAX_LOG_LINES} lines
 * since, and with no Warning Event about a fence refusal on any Service.
 */
import { readFile } from 'node:fs/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { type FaultRecord, SIGSTOP_FAULTS } from './faults.ts';
import type { ProcessRecord } from './fleet.ts';
import type { Violation } from './invariants.ts';
import type { Term } from './lease-history.ts';
import { NAMESPACE } from './workload.ts';

/** From SIGCONT to the `"leaderelection lost"` line, in ms. */
export const DEPOSED_LOST_BOUND_MS = 2_000;
/** From SIGCONT to the process' exit as the parent sees it, in ms (the manager's stop is bounded at 1 s). */
export const DEPOSED_EXIT_BOUND_MS = 5_000;
/** Lines a deposed leader may log from SIGCONT to its exit (its refusals, the lost lease, the stop). */
export const DEPOSED_MAX_LOG_LINES = 40;

/** How one resumed leader ended. */
export interface DeposedExit {
  identity: string;
  /** ms from SIGCONT to the `"leaderelection lost"` line (undefined: none). */
  lostMs: number | undefined;
  /** ms from SIGCONT to exit (undefined: still running at the end of the run). */
  exitMs: number | undefined;
  exitCode: number | null | undefined;
  signal: NodeJS.Signals | null | undefined;
  /** Lines logged from SIGCONT to exit. */
  linesAfterResume: number;
}

/** What a process that was resumed at `resumedAt` (having written `linesAtResume` lines) did next. */
export async function deposedExit(p: ProcessRecord, resumedAt: number, linesAtResume: number): Promise<DeposedExit> {
  const log = await readFile(p.logPath, 'utf8').catch(() => '');
  return {
    identity: p.identity ?? '',
    exitMs: p.exitedAt === undefined ? undefined : p.exitedAt - resumedAt,
    exitCode: p.exitCode,
    signal: p.signal,
    linesAfterResume: p.lines - linesAtResume,
    lostMs: lostLeaseAt(log, resumedAt),
  };
}

/** Epoch ms of a klog text line's `"leaderelection lost"` minus `near` (klog gives local time without a year). */
function lostLeaseAt(log: string, near: number): number | undefined {
  const m = /^E(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}) .*\] "leaderelection lost"/m.exec(log);
  if (!m) return undefined;
  const [mo, d, h, mi, sec, us] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(new Date(near).getFullYear(), mo - 1, d, h, mi, sec, us / 1000).getTime() - near;
}

/** The violations of one {@link DeposedExit}, against the bounds above. */
export function deposedExitViolations(d: DeposedExit): Violation[] {
  const problems: string[] = [];
  if (d.exitMs === undefined) problems.push('did not exit');
  else if (d.exitMs > DEPOSED_EXIT_BOUND_MS)
    problems.push(`exited ${d.exitMs} ms after SIGCONT (bound ${DEPOSED_EXIT_BOUND_MS} ms)`);
  if (d.exitMs !== undefined && (d.exitCode !== 1 || d.signal))
    problems.push(`exit status ${d.exitCode ?? d.signal}, not 1`);
  if (d.lostMs === undefined) problems.push('no "leaderelection lost" line');
  else if (d.lostMs > DEPOSED_LOST_BOUND_MS)
    problems.push(`"leaderelection lost" ${d.lostMs} ms after SIGCONT (bound ${DEPOSED_LOST_BOUND_MS} ms)`);
  if (d.linesAfterResume > DEPOSED_MAX_LOG_LINES)
    problems.push(`${d.linesAfterResume} log lines after SIGCONT (bound ${DEPOSED_MAX_LOG_LINES})`);
  return problems.map((detail) => ({ invariant: 'deposed leader exits cleanly', object: d.identity, detail }));
}

/**
 * The resumed leaders of a run: each SIGSTOP/SIGCONT fault during which another replica took the lease (the
 * leader faults and the orphan faults, which stop the leader while they change a Service).
 * @param recordOf the process record of a lease identity.
 */
export async function deposedExits(
  faults: readonly FaultRecord[],
  terms: readonly Term[],
  recordOf: (identity: string) => ProcessRecord | undefined,
): Promise<DeposedExit[]> {
  const out: DeposedExit[] = [];
  for (const f of faults) {
    if (!SIGSTOP_FAULTS.has(f.kind) || !f.identity || f.endedAt === undefined || f.linesAtResume === undefined)
      continue;
    const takenOver = terms.some((t) => t.holder !== f.identity && t.start > f.t && t.start < f.endedAt!);
    const p = recordOf(f.identity);
    if (takenOver && p) out.push(await deposedExit(p, f.endedAt, f.linesAtResume));
  }
  return out;
}

/** Warning Events in the workload namespace whose message is a fence refusal (a deposed leader must write none). */
export async function refusalWarningEvents(kc: KubeConfig): Promise<string[]> {
  const events = await kc.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: NAMESPACE });
  return events.items
    .filter((e) => e.type === 'Warning' && /has not renewed lease/.test(e.message ?? ''))
    .map((e) => `${e.involvedObject.kind}/${e.involvedObject.name}: ${e.reason}`);
}

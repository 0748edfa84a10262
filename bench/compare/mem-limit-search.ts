/**
 * `--find-mem-limit`: the memory a user must give a CCM, found per workload config and implementation. A pod's
 * `resources.limits.memory` is what a user sets, not VmHWM: Node sizes its heap from the limit, Go's runtime
 * does not, so the unlimited peak says little about the smallest limit that works.
 *
 * The search runs the config without a limit (the baseline: median wall and VmHWM over `baselineRuns`), then
 * bisects, in steps of `stepMiB` (8 MiB), the smallest limit under which one run completes without an OOM kill
 * and within `wallFactor` (1.2) × the baseline wall. It starts from the baseline VmHWM rounded up to a step and
 * doubles that until a run passes (at most `maxMiB`), and assumes a limit of 0 fails. A run that was only slow
 * (no OOM kill) is run once more, and the second run decides: wall times vary by more than a fifth on a loaded
 * machine, while a limit too small slows every run. Otherwise one run a probe: a limit near the threshold may pass
 * once and fail the next time, so the figure is good to about a step or two.
 */
import { median } from './stats.ts';

/** What one run under a limit (or without one: 0) gave. */
export interface ProbeRun {
  /** The run converged and its figures were read. */
  ok: boolean;
  /** The kernel's OOM killer killed the CCM. */
  oomKilled: boolean;
  wallS: number;
  hwmMiB: number;
  /** Why a failed run failed. */
  error?: string;
}

/** Runs the config once under `limitMiB` (0: no limit); `unlimitedWallS` (NaN for the baseline) bounds its wait. */
export type RunUnderLimit = (limitMiB: number, unlimitedWallS: number) => Promise<ProbeRun>;

export type Verdict = 'completed' | 'oom-killed' | 'failed' | 'slow';

export interface Probe {
  limitMiB: number;
  verdict: Verdict;
  wallS: number;
  hwmMiB: number;
}

export interface MemLimitResult {
  unlimitedWallS: number;
  unlimitedHwmMiB: number;
  /** The smallest limit that passed, MiB; undefined when none did (see {@link MemLimitResult.note}). */
  limitMiB?: number;
  /** Wall time of the run that passed at {@link MemLimitResult.limitMiB}, seconds. */
  wallAtLimitS: number;
  /** Every probe, in the order run. */
  probes: Probe[];
  /** Why no limit was found. */
  note?: string;
}

export interface SearchOptions {
  /** Unlimited runs for the baseline (the config's repetitions). */
  baselineRuns: number;
  /** Resolution, MiB (default 8). */
  stepMiB?: number;
  /** A run slower than this × the baseline wall fails (default 1.2). */
  wallFactor?: number;
  /** Give up when doubling passes this limit, MiB (default 16,384). */
  maxMiB?: number;
}

/** The verdict on one run under a limit. */
export function verdictOf(run: ProbeRun, unlimitedWallS: number, wallFactor: number): Verdict {
  if (run.oomKilled) return 'oom-killed';
  if (!run.ok) return 'failed';
  return run.wallS > wallFactor * unlimitedWallS ? 'slow' : 'completed';
}

/**
 * Finds the smallest passing limit (see the module comment); never throws for a failed run.
 * @throws Error when `baselineRuns` < 1 or `stepMiB` is not a positive integer.
 */
export async function findMemLimit(run: RunUnderLimit, o: SearchOptions): Promise<MemLimitResult> {
  const step = o.stepMiB ?? 8;
  const factor = o.wallFactor ?? 1.2;
  const maxMiB = o.maxMiB ?? 16_384;
  if (!(o.baselineRuns >= 1)) throw new Error(`baselineRuns must be at least 1, got ${o.baselineRuns}`);
  if (!Number.isInteger(step) || step < 1) throw new Error(`stepMiB must be a positive integer, got ${step}`);

  const baseline: ProbeRun[] = [];
  for (let i = 0; i < o.baselineRuns; i++) baseline.push(await run(0, NaN));
  const failed = baseline.find((r) => !r.ok);
  const result: MemLimitResult = {
    unlimitedWallS: median(baseline.map((r) => r.wallS)),
    unlimitedHwmMiB: median(baseline.map((r) => r.hwmMiB)),
    wallAtLimitS: NaN,
    probes: [],
  };
  if (failed) return { ...result, note: `the run without a limit failed: ${failed.error ?? 'unknown error'}` };

  const probe = async (limitMiB: number) => {
    const r = await run(limitMiB, result.unlimitedWallS);
    const verdict = verdictOf(r, result.unlimitedWallS, factor);
    result.probes.push({ limitMiB, verdict, wallS: r.wallS, hwmMiB: r.hwmMiB });
    return { r, verdict };
  };
  const passes = async (limitMiB: number): Promise<boolean> => {
    let { r, verdict } = await probe(limitMiB);
    if (verdict === 'slow') ({ r, verdict } = await probe(limitMiB));
    if (verdict === 'completed' && (result.limitMiB === undefined || limitMiB < result.limitMiB)) {
      result.limitMiB = limitMiB;
      result.wallAtLimitS = r.wallS;
    }
    return verdict === 'completed';
  };

  // [lo, hi]: lo fails (or is 0), hi passes; both multiples of the step.
  let lo = 0;
  let hi = Math.max(step, Math.ceil(result.unlimitedHwmMiB / step) * step);
  while (!(await passes(hi))) {
    lo = hi;
    hi *= 2;
    if (hi > maxMiB) return { ...result, note: `no limit up to ${lo} MiB passed` };
  }
  while (hi - lo > step) {
    const mid = lo + Math.floor((hi - lo) / 2 / step) * step;
    if (await passes(mid)) hi = mid;
    else lo = mid;
  }
  return result;
}

/** One config's search for one implementation, for the report. */
export interface MemLimitRow {
  config: string;
  impl: string;
  found: MemLimitResult;
}

const fmt = (x: number, digits: number) => (Number.isNaN(x) ? '–' : x.toFixed(digits));

/** The report section: per config and implementation the smallest limit beside VmHWM, and every probe. */
export function renderMemLimits(
  rows: readonly MemLimitRow[],
  o: { stepMiB?: number; wallFactor?: number } = {},
): string {
  const lines = [
    '## Smallest memory limit (--find-mem-limit)',
    '',
    `The smallest cgroup memory limit (to ${o.stepMiB ?? 8} MiB) under which one run completed without an OOM kill and within ${o.wallFactor ?? 1.2} × the wall time without a limit; probes in the order run.`,
    '',
    '| config | implementation | VmHWM without a limit, MiB | wall without a limit, s | smallest limit, MiB | limit ÷ VmHWM | wall at it, s | probes (MiB: verdict, wall s) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const { config, impl, found: f } of rows) {
    const probes = f.probes.map(
      (p) => `${p.limitMiB}: ${p.verdict}${Number.isNaN(p.wallS) ? '' : ` ${fmt(p.wallS, 1)}`}`,
    );
    lines.push(
      `| ${config} | ${impl} | ${fmt(f.unlimitedHwmMiB, 0)} | ${fmt(f.unlimitedWallS, 2)} | ${f.limitMiB ?? `none (${f.note})`} | ${f.limitMiB === undefined ? '–' : fmt(f.limitMiB / f.unlimitedHwmMiB, 2)} | ${fmt(f.wallAtLimitS, 2)} | ${probes.join('; ')} |`,
    );
  }
  return lines.join('\n');
}

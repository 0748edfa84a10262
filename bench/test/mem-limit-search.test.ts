import { describe, expect, it } from 'vitest';
import { findMemLimit, type ProbeRun, renderMemLimits, verdictOf } from '../compare/mem-limit-search.ts';

/**
 * A fake CCM: OOM-killed under `oomBelow` MiB, slow (twice the wall) under `slowBelow` MiB, else 10 s; VmHWM
 * `hwm` without a limit. Records the limits it was run under.
 */
function fakeRun(p: { oomBelow: number; slowBelow?: number; hwm: number; failUnlimited?: boolean }) {
  const limits: number[] = [];
  const run = async (limitMiB: number): Promise<ProbeRun> => {
    limits.push(limitMiB);
    if (limitMiB === 0) {
      return p.failUnlimited
        ? { ok: false, oomKilled: false, wallS: NaN, hwmMiB: NaN, error: 'timed out' }
        : { ok: true, oomKilled: false, wallS: 10, hwmMiB: p.hwm };
    }
    if (limitMiB < p.oomBelow) return { ok: false, oomKilled: true, wallS: NaN, hwmMiB: NaN, error: 'SIGKILL' };
    return {
      ok: true,
      oomKilled: false,
      wallS: limitMiB < (p.slowBelow ?? 0) ? 20 : 10,
      hwmMiB: Math.min(p.hwm, limitMiB),
    };
  };
  return { run, limits };
}

describe('verdictOf', () => {
  it('tells an OOM kill, a failure, a slow run and a completed one apart', () => {
    const ok = { ok: true, oomKilled: false, wallS: 12, hwmMiB: 50 };
    expect(verdictOf(ok, 10, 1.2)).toBe('completed');
    expect(verdictOf({ ...ok, wallS: 12.1 }, 10, 1.2)).toBe('slow');
    expect(verdictOf({ ...ok, ok: false }, 10, 1.2)).toBe('failed');
    expect(verdictOf({ ...ok, ok: false, oomKilled: true }, 10, 1.2)).toBe('oom-killed');
  });
});

describe('findMemLimit', () => {
  it('bisects from the unlimited VmHWM down to the smallest passing multiple of 8 MiB', async () => {
    // W1 as measured by hand: VmHWM 145 MiB without a limit, completes under 56, OOM-killed under 44.
    const f = fakeRun({ oomBelow: 50, hwm: 145 });
    const r = await findMemLimit(f.run, { baselineRuns: 1 });
    expect(r.limitMiB).toBe(56);
    expect(r.unlimitedHwmMiB).toBe(145);
    expect(r.wallAtLimitS).toBe(10);
    expect(f.limits[0]).toBe(0);
    expect(f.limits[1]).toBe(152);
    // Every limit probed is a multiple of the step, and 48 (the next lower step) was probed and failed.
    expect(r.probes.every((p) => p.limitMiB % 8 === 0)).toBe(true);
    expect(r.probes.find((p) => p.limitMiB === 48)?.verdict).toBe('oom-killed');
    expect(r.probes.length).toBeLessThanOrEqual(6);
  });

  it('doubles past a VmHWM that is not enough (a runtime that ignores the limit)', async () => {
    const f = fakeRun({ oomBelow: 100, hwm: 89 });
    const r = await findMemLimit(f.run, { baselineRuns: 1 });
    expect(f.limits.slice(1, 3)).toEqual([96, 192]);
    expect(r.limitMiB).toBe(104);
  });

  it('counts a run slower than 1.2 × the unlimited wall as a failure', async () => {
    const f = fakeRun({ oomBelow: 40, slowBelow: 70, hwm: 120 });
    const r = await findMemLimit(f.run, { baselineRuns: 1 });
    expect(r.limitMiB).toBe(72);
    expect(r.probes.some((p) => p.verdict === 'slow')).toBe(true);
  });

  it('runs a slow probe once more and lets the second run decide', async () => {
    const f = fakeRun({ oomBelow: 50, hwm: 145 });
    let calls = 0;
    // The first run under 152 MiB is slow (a loaded machine), every later run is not.
    const noisy = async (limitMiB: number) => {
      const r = await f.run(limitMiB);
      return limitMiB === 152 && calls++ === 0 ? { ...r, wallS: 30 } : r;
    };
    const r = await findMemLimit(noisy, { baselineRuns: 1 });
    expect(r.probes.slice(0, 2).map((p) => [p.limitMiB, p.verdict])).toEqual([
      [152, 'slow'],
      [152, 'completed'],
    ]);
    expect(r.limitMiB).toBe(56);
  });

  it('takes the median of the baseline runs and honours the step', async () => {
    const f = fakeRun({ oomBelow: 33, hwm: 100 });
    const r = await findMemLimit(f.run, { baselineRuns: 3, stepMiB: 4 });
    expect(f.limits.slice(0, 3)).toEqual([0, 0, 0]);
    expect(r.limitMiB).toBe(36);
  });

  it('reports no limit when the unlimited run fails, and probes nothing', async () => {
    const f = fakeRun({ oomBelow: 10, hwm: 100, failUnlimited: true });
    const r = await findMemLimit(f.run, { baselineRuns: 1 });
    expect(r.limitMiB).toBeUndefined();
    expect(r.note).toMatch(/without a limit failed: timed out/);
    expect(f.limits).toEqual([0]);
  });

  it('gives up past maxMiB', async () => {
    const f = fakeRun({ oomBelow: 10_000, hwm: 100 });
    const r = await findMemLimit(f.run, { baselineRuns: 1, maxMiB: 1000 });
    expect(r.limitMiB).toBeUndefined();
    expect(r.note).toBe('no limit up to 832 MiB passed');
  });

  it('rejects a baseline of no runs', async () => {
    await expect(findMemLimit(fakeRun({ oomBelow: 1, hwm: 1 }).run, { baselineRuns: 0 })).rejects.toThrow(
      /baselineRuns must be at least 1/,
    );
  });
});

describe('renderMemLimits', () => {
  it('shows the limit beside VmHWM and every probe', async () => {
    const found = await findMemLimit(fakeRun({ oomBelow: 50, hwm: 145 }).run, { baselineRuns: 1 });
    const md = renderMemLimits([{ config: 'W1 N=1000 c=10', impl: 'ccm-kit', found }]);
    expect(md).toContain('| W1 N=1000 c=10 | ccm-kit | 145 | 10.00 | 56 | 0.39 | 10.00 | 152: completed 10.0; ');
    expect(md).toContain('48: oom-killed');
  });
});

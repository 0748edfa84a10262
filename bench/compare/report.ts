/**
 * The Markdown report of a bench:compare run: per workload the figures of each implementation (median
 * and IQR over the repetitions), API requests by verb/resource and cloud calls by method; the ratios
 * ccm-kit / Go protobuf with the performance targets and PASS/FAIL; the parity of the final states.
 */
import { diffStates } from './parity.ts';
import { type Config, CONFIG_FIELDS, configKey } from './plan.ts';
import type { Impl, RunResult } from './run.ts';
import { median, medianIqr } from './stats.ts';
import { WORKLOADS } from './workloads/index.ts';

export interface ReportInput {
  title: string;
  /** `- key: value` lines of the header. */
  header: string[];
  configs: Config[];
  results: RunResult[];
  defaults: { qps: number; burst: number; latencyMs: number };
}

const sameConfig = (c: Config, r: RunResult) => CONFIG_FIELDS.every((f) => r[f] === c[f]);

function fmt(x: number, digits = 1): string {
  return Number.isNaN(x) ? '–' : Number.isInteger(x) ? String(x) : x.toFixed(digits);
}
const cloudTotal = (r: RunResult) => Object.values(r.calls).reduce((a, b) => a + b, 0);
const load = (r: RunResult) => (r.loadStart + r.loadEnd) / 2;

/** A performance target for one config, from the medians of ccm-kit and Go protobuf. */
interface Target {
  what: string;
  holds: (ts: Medians, go: Medians) => boolean;
  /** The ratio shown beside the verdict, when it is not one of the table's columns. */
  ratio?: (ts: Medians, go: Medians) => number;
}
interface Medians {
  wallS: number;
  cpuS: number;
  hwmMiB: number;
  startupS: number;
  /** Medians of the workload's figures (W9: converged s, 429s, …). */
  extra: Record<string, number>;
  /** Runs (successful or not) in which the OOM killer killed the CCM. */
  oomKills: number;
}

/**
 * At most `factor` × Go's figure. A figure Go has not got (NaN: W9's convergence or p99 when Go did not converge
 * within the window's cap) is beaten by any figure ccm-kit has.
 */
const atMost = (t: number, g: number, factor: number) => (Number.isNaN(g) ? !Number.isNaN(t) : t <= factor * g);

/** The performance targets that apply to a config. */
function targetsFor(c: Config): Target[] {
  const out: Target[] = [];
  const w12 = c.workload === 'W1' || c.workload === 'W2';
  if (w12 && c.nodes >= 1000) {
    out.push({ what: 'VmHWM ≤ 1.0×', holds: (t, g) => t.hwmMiB <= g.hwmMiB });
    // W1's per-Node work at full client speed must cost less than Go's; W2's no more.
    const cpu = c.workload === 'W1' && c.qps >= 1000 ? 0.8 : 1.0;
    out.push({ what: `CPU ≤ ${cpu}×`, holds: (t, g) => t.cpuS <= cpu * g.cpuS });
    if (c.qps >= 1000) out.push({ what: 'wall ≤ 1.0×', holds: (t, g) => t.wallS <= g.wallS });
  }
  // A W1 of a few dozen Nodes is mostly start-up: loading the code and the first list.
  if (c.workload === 'W1' && c.nodes <= 30)
    out.push({ what: 'start-up CPU ≤ 1.0×', holds: (t, g) => t.cpuS <= g.cpuS });
  if (c.workload === 'W8' && c.nodes >= 50_000) {
    out.push({ what: 'VmHWM ≤ 0.5×', holds: (t, g) => t.hwmMiB <= 0.5 * g.hwmMiB });
    out.push({ what: 'CPU ≤ 0.2×', holds: (t, g) => t.cpuS <= 0.2 * g.cpuS });
  } else if (c.workload === 'W8') out.push({ what: 'VmHWM ≤ 0.6×', holds: (t, g) => t.hwmMiB <= 0.6 * g.hwmMiB });
  if (c.workload === 'W8' && c.memLimitMiB > 0)
    out.push({ what: 'ccm-kit not OOM-killed', holds: (t) => t.oomKills === 0 });
  if (w12 && c.latencyMs === 0)
    out.push({ what: 'start-up ≤ Go + 0.3 s', holds: (t, g) => t.startupS <= g.startupS + 0.3 });
  const x = (what: string, key: string, factor: number): Target => ({
    what,
    holds: (t, g) => atMost(Number(t.extra[key]), Number(g.extra[key]), factor),
    ratio: (t, g) => Number(t.extra[key]) / Number(g.extra[key]),
  });
  if (c.workload === 'W9') {
    out.push(x('ingress p99 ≤ 0.2×', 'timeToIngressP99S', 0.2));
    out.push(x('429s ≤ 0.1×', 'cloudThrottled', 0.1));
    out.push(x('window cloud calls ≤ 0.5×', 'windowCloudCalls', 0.5));
    out.push(x('converged ≤ Go', 'convergedS', 1));
  }
  if (c.workload === 'W10') {
    // Go protobuf here is the `go` row, at --concurrent-service-syncs=1.
    out.push(x('converged ≤ 0.2× Go at 1', 'convergedS', 0.2));
    out.push(x('host update ≤ 0.2× Go at 1', 'hostUpdateS', 0.2));
    out.push({ what: 'ccm-kit 0 conflicts', holds: (t) => t.extra.conflicts === 0 });
  }
  return out;
}

export function renderReport(input: ReportInput): string {
  const { configs, results, defaults } = input;
  const key = (c: Config) => configKey(c, defaults);
  const runsOf = (c: Config, impl: Impl) => results.filter((r) => r.ok && r.impl === impl.id && sameConfig(c, r));
  const failedOf = (c: Config, impl: Impl) =>
    results.filter((r) => !r.ok && r.impl === impl.id && sameConfig(c, r)).length;
  const col = (rs: RunResult[], f: (r: RunResult) => number, digits = 1) => medianIqr(rs.map(f), digits);
  const lines: string[] = [];
  const out = (s = '') => lines.push(s);

  out(`# ${input.title}`);
  out();
  for (const h of input.header) out(`- ${h}`);
  out();
  out('Cells are median (IQR) over the repetitions.');

  for (const w of WORKLOADS) {
    const cs = configs.filter((c) => c.workload === w.id);
    if (cs.length === 0) continue;
    out();
    out(`## ${w.title}`);
    out();
    const limited = cs.some((c) => c.memLimitMiB > 0);
    const extraHead =
      w.columns.map((x) => ` ${x.label} |`).join('') +
      (limited ? ' cgroup peak MiB | limit hits | OOM-killed runs |' : '');
    out(
      `| config | implementation | wall s | p50 s | p90 s | start-up s | then at rest s | CPU s | VmHWM MiB | VmRSS at rest MiB | API requests | API writes | 409s | cloud calls | load 1m |${extraHead}`,
    );
    out(`|${'---|'.repeat(15 + w.columns.length + (limited ? 3 : 0))}`);
    for (const c of cs) {
      for (const impl of c.impls) {
        const rs = runsOf(c, impl);
        const failed = failedOf(c, impl);
        const cpu = rs.some((r) => Number.isFinite(r.cpuWorkloadS))
          ? `${col(rs, (r) => r.cpuS, 2)} (${fmt(median(rs.map((r) => r.cpuWorkloadS)), 2)})`
          : col(rs, (r) => r.cpuS, 2);
        const all = results.filter((r) => r.impl === impl.id && sameConfig(c, r));
        const memCols = limited
          ? ` ${col(rs, (r) => r.cgroupMaxUsageMiB, 0)} | ${col(rs, (r) => r.cgroupFailcnt, 0)} | ${all.filter((r) => r.oomKilled).length} of ${all.length} |`
          : '';
        const extra =
          w.columns.map((x) => ` ${col(rs, (r) => Number(r.extra[x.key] ?? NaN), x.digits)} |`).join('') + memCols;
        out(
          `| ${key(c).replace(`${w.id} `, '')} ×${c.reps}${failed ? ` (${failed} failed)` : ''} | ${impl.label} | ${col(rs, (r) => r.wallS, 2)} | ${col(rs, (r) => r.p50S, 2)} | ${col(rs, (r) => r.p90S, 2)} | ${col(rs, (r) => r.startupS, 2)} | ${col(rs, (r) => r.settleS, 1)} | ${cpu} | ${col(rs, (r) => r.hwmMiB, 0)} | ${col(rs, (r) => r.rssMiB, 0)} | ${col(rs, (r) => r.api.total, 0)} | ${col(rs, (r) => r.api.writes, 0)} | ${col(rs, (r) => r.api.conflicts, 0)} | ${col(rs, cloudTotal, 0)} | ${col(rs, load, 2)} |${extra}`,
        );
      }
    }
    out();
    out(`### ${w.id}: API requests by verb and resource, and cloud calls by method (medians per run)`);
    for (const c of cs) {
      out();
      out(`**${key(c)}** (${c.reps} repetition${c.reps === 1 ? '' : 's'})`);
      out();
      out(`| request / call | ${c.impls.map((i) => i.label).join(' | ')} |`);
      out(`|---|${c.impls.map(() => '---').join('|')}|`);
      const apiKeys = new Set<string>();
      const callKeys = new Set<string>();
      for (const impl of c.impls) {
        for (const r of runsOf(c, impl)) {
          for (const k of Object.keys(r.api.byVerbResource)) apiKeys.add(k);
          for (const [k, v] of Object.entries(r.calls)) if (v > 0) callKeys.add(k);
        }
      }
      const row = (label: string, f: (r: RunResult) => number) =>
        out(`| ${label} | ${c.impls.map((i) => fmt(median(runsOf(c, i).map(f)))).join(' | ')} |`);
      for (const k of [...apiKeys].sort()) row(`API ${k}`, (r) => r.api.byVerbResource[k] ?? 0);
      row('API responses 409', (r) => r.api.byCode['409'] ?? 0);
      row('API other errors (≥400)', (r) => r.api.otherErrors);
      for (const k of [...callKeys].sort()) row(`cloud ${k}`, (r) => r.calls[k] ?? 0);
    }
  }

  // ---- ratios and targets ----
  const ts = configs[0]?.impls.find((i) => i.id === 'ts');
  out();
  out('## ccm-kit / Go protobuf, and the performance targets');
  out();
  out(
    "Ratios of the medians (ccm-kit ÷ Go protobuf); start-up as the difference ccm-kit − Go; load: the median 1-minute load average over both implementations' runs. Targets: VmHWM ≤ 1.0× on W1/W2 at N ≥ 1000, ≤ 0.6× on W8 and ≤ 0.5× on W8 at N ≥ 50,000 (under a memory limit also: ccm-kit not OOM-killed); CPU ≤ 0.8× on W1 at N ≥ 1000 and QPS ≥ 1000, ≤ 1.0× on W2 at N ≥ 1000, ≤ 1.0× on a W1 of N ≤ 30 (start-up), ≤ 0.2× on W8 at N ≥ 50,000; wall ≤ 1.0× on W1/W2 at N ≥ 1000 and QPS ≥ 1000; start-up ≤ Go + 0.3 s on W1/W2 without cloud latency; W9: the new Services' ingress p99 ≤ 0.2×, 429s ≤ 0.1×, cloud calls in the window ≤ 0.5×, converged no later than Go (a figure Go has not got because it did not converge within the window's cap counts as beaten); W10 (against Go at --concurrent-service-syncs=1): converged ≤ 0.2×, host update ≤ 0.2×, ccm-kit 0 conflicts.",
  );
  out();
  out('| config | wall ×  | CPU × | VmHWM × | start-up Δ s | load 1m | targets |');
  out('|---|---|---|---|---|---|---|');
  for (const c of configs) {
    const tsImpl = c.impls.find((i) => i.id === 'ts') ?? ts;
    const goImpl = c.impls.find((i) => i.id === 'go');
    if (!tsImpl || !goImpl) continue;
    const a = runsOf(c, tsImpl);
    const b = runsOf(c, goImpl);
    if (a.length === 0 || b.length === 0) {
      out(`| ${key(c)} | – | – | – | – | – | no successful run of both |`);
      continue;
    }
    const m = (rs: RunResult[], impl: Impl): Medians => ({
      wallS: median(rs.map((r) => r.wallS)),
      cpuS: median(rs.map((r) => r.cpuS)),
      hwmMiB: median(rs.map((r) => r.hwmMiB)),
      startupS: median(rs.map((r) => r.startupS)),
      extra: Object.fromEntries(
        [...new Set(rs.flatMap((r) => Object.keys(r.extra)))].map((k) => [
          k,
          median(rs.map((r) => Number(r.extra[k] ?? NaN))),
        ]),
      ),
      oomKills: results.filter((r) => r.impl === impl.id && sameConfig(c, r) && r.oomKilled).length,
    });
    const [t, g] = [m(a, tsImpl), m(b, goImpl)];
    const verdicts = targetsFor(c).map(
      (x) => `${x.what}: **${x.holds(t, g) ? 'PASS' : 'FAIL'}**${x.ratio ? ` (${fmt(x.ratio(t, g), 3)}×)` : ''}`,
    );
    out(
      `| ${key(c)} | ${fmt(t.wallS / g.wallS, 2)} | ${fmt(t.cpuS / g.cpuS, 2)} | ${fmt(t.hwmMiB / g.hwmMiB, 2)} | ${(t.startupS - g.startupS >= 0 ? '+' : '') + fmt(t.startupS - g.startupS, 2)} | ${fmt(median([...a, ...b].map(load)), 2)} | ${verdicts.join('; ') || '–'} |`,
    );
  }

  // ---- parity ----
  out();
  out(
    "## Correctness parity (final Node and Service state and the fake cloud's balancers and routes, first successful run of each implementation; LB IPs normalized)",
  );
  out();
  let issues = 0;
  for (const c of configs) {
    const firsts = c.impls.map((i) => ({ impl: i, run: runsOf(c, i)[0] }));
    const base = firsts[0]!;
    for (const other of firsts.slice(1)) {
      if (!base.run?.state || !other.run?.state) {
        issues++;
        out(`- ${key(c)}: ${base.impl.id} vs ${other.impl.id}: no successful run to compare`);
        continue;
      }
      const diffs = diffStates(base.run.state, other.run.state, base.impl.id, other.impl.id);
      if (diffs.length === 0)
        out(
          `- ${key(c)}: ${base.impl.id} vs ${other.impl.id}: identical (${Object.keys(base.run.state).length} objects)`,
        );
      for (const d of diffs) {
        issues++;
        out(
          `- ${key(c)}: ${base.impl.id} vs ${other.impl.id}: **${d.field}** differs on ${d.objects} object(s), e.g. ${d.example}`,
        );
      }
    }
    for (const r of results.filter((x) => sameConfig(c, x))) {
      for (const p of r.problems) {
        if (!p.startsWith('CCM log kept')) issues++;
        out(`- ${key(c)} ${r.impl}: ${p}`);
      }
      if (!r.ok) out(`- ${key(c)} ${r.impl}: FAILED: ${r.error}`);
    }
  }
  if (issues === 0) out('- no differences and no invariant violations');
  return lines.join('\n');
}

/**
 * Side-by-side benchmark: ccm-kit's cloud-controller-manager (bench/ts-ccm.ts) against the upstream Go
 * cloud-controller-manager built from k8s.io/cloud-provider (bench/upstream-ccm), both with the same
 * in-process fake cloud ("fakebench"), the same flags and the same RBAC, on a fresh real control plane
 * per run. See bench/README.md for what is measured and how to read the tables.
 *
 *   npm run bench:compare                       # full matrix (W1–W8, ≈ 30 min on 2 cores; W9 only when asked)
 *   npm run bench:compare -- --quick            # small configs, 1 repetition (≈ 3 min)
 *   node --expose-gc bench/compare.ts [options] # after `tsc -b` and bench/upstream-ccm/build.sh
 *
 * Options: --quick, --reps=<n>, --impls=ts,go,go-json, --w1=… … --w10=… (configs, see compare/plan.ts;
 * an empty list disables the workload), --qps=<n> --burst=<n> (default 20/30), --latency-ms=<n>
 * (fakebench latency, default 0), --mem-limit-mib=<n> (each CCM in a cgroup v1 memory cgroup with this
 * limit, compare/cgroup.ts; default none; root only), --no-warmup,
 * --out=<dir> (default ~/.cache/ccm-kit/bench/results), --ts-node-args='<node flags for the TS CCM>' (for example
 * '--cpu-prof --cpu-prof-dir=/tmp/prof'; NODE_OPTIONS refuses --cpu-prof), --ts-entry=bundle|unbundled (default
 * bundle: bench/ts-ccm.ts built by `ccm-kit build` and run as the scaffolded image runs it; unbundled: the tsc
 * output through node_modules), --no-compile-cache (the bundle without the image's compile cache, decision 0417, to
 * measure it), --ts-repo=<checkout> (the ccm-kit side from another checkout's bench/ts-ccm.ts,
 * built there with `tsc -b`; default this one: to compare two commits, run twice and alternate), --find-mem-limit
 * (per config and implementation, the smallest memory limit it completes under: compare/mem-limit-search.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, homedir, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureControlPlaneBinaries } from '@ccm-kit/testing';
import { findMemLimit, type MemLimitRow, renderMemLimits } from './compare/mem-limit-search.ts';
import { buildPlan, type Config, configKey as keyOf } from './compare/plan.ts';
import { pinSelf, taskset } from './compare/process.ts';
import { renderReport } from './compare/report.ts';
import { tsCcmBundle, vendorEnv } from './compare/ts-bundle.ts';
import { type Impl, type ImplId, type RunResult, runOnce } from './compare/run.ts';
import { median } from './compare/stats.ts';
import { workloadById } from './compare/workloads/index.ts';
import { abbaRound } from './transport/order.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with --expose-gc: node --expose-gc bench/compare.ts');
  process.exit(2);
}

const here = dirname(fileURLToPath(import.meta.url));
const repo = dirname(here);

// ---- options ---------------------------------------------------------------------------------------
const argv = process.argv.slice(2);
function opt(name: string): string | undefined {
  const hit = argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (hit === undefined) return undefined;
  return hit.includes('=') ? hit.slice(hit.indexOf('=') + 1) : 'true';
}
function num(name: string, def: number): number {
  const v = opt(name);
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0)
    throw new Error(`--${name} must be a non-negative number, got ${JSON.stringify(v)}`);
  return n;
}
const known = [
  'quick',
  'reps',
  'impls',
  'w1',
  'w2',
  'w3',
  'w4',
  'w5',
  'w6',
  'w7',
  'w8',
  'w9',
  'w10',
  'qps',
  'burst',
  'latency-ms',
  'mem-limit-mib',
  'no-warmup',
  'out',
  'ts-node-args',
  'ts-entry',
  'no-compile-cache',
  'ts-repo',
  'find-mem-limit',
];
for (const a of argv) {
  const name = a.replace(/^--/, '').split('=')[0]!;
  if (!a.startsWith('--') || !known.includes(name)) {
    console.error(`unknown argument ${JSON.stringify(a)}; options: ${known.map((k) => `--${k}`).join(' ')}`);
    process.exit(2);
  }
}
const quick = opt('quick') === 'true';
const reps = num('reps', quick ? 1 : 3);
const qps = num('qps', 20);
const burst = num('burst', 30);
const latencyMs = num('latency-ms', 0);
const memLimitMiB = num('mem-limit-mib', 0);
const warmup = opt('no-warmup') !== 'true' && !quick;
const findMemLimitMode = opt('find-mem-limit') === 'true';
const outDir = opt('out') ?? join(homedir(), '.cache', 'ccm-kit', 'bench', 'results');

// ---- implementations -------------------------------------------------------------------------------
function buildGo(): string {
  const out = execFileSync('bash', [join(here, 'upstream-ccm', 'build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').at(-1)!;
}
const goBinary = buildGo();
const tsEntry = opt('ts-entry') ?? 'bundle';
if (tsEntry !== 'bundle' && tsEntry !== 'unbundled')
  throw new Error(`--ts-entry must be bundle or unbundled, got ${JSON.stringify(tsEntry)}`);
// As a vendor ships it: the `ccm-kit build` bundle; or the tsc output for comparison. Both with the image's NODE_OPTIONS.
// --ts-repo: the ccm-kit side from another checkout (built with `tsc -b`, with node_modules), to compare two commits.
const tsRepo = opt('ts-repo') ?? repo;
const tsProgram =
  tsEntry === 'bundle' ? await tsCcmBundle(tsRepo, (l) => console.log(l)) : join(tsRepo, 'bench', 'ts-ccm.ts');
// `go-at-c` is not chosen here: W10 adds it beside `go` (compare/plan.ts).
const allImpls: Record<Exclude<ImplId, 'go-at-c'>, Impl> = {
  ts: {
    id: 'ts',
    label: tsEntry === 'bundle' ? 'ccm-kit (TS, JSON)' : 'ccm-kit (TS, JSON, unbundled)',
    command: process.execPath,
    prefixArgs: [...(opt('ts-node-args')?.split(' ').filter(Boolean) ?? []), tsProgram],
    env: vendorEnv(tsEntry === 'bundle' && opt('no-compile-cache') !== 'true' ? tsProgram : undefined),
    extraArgs: [],
  },
  go: { id: 'go', label: 'upstream (Go, protobuf)', command: goBinary, prefixArgs: [], extraArgs: [] },
  'go-json': {
    id: 'go-json',
    label: 'upstream (Go, JSON)',
    command: goBinary,
    prefixArgs: [],
    extraArgs: ['--kube-api-content-type=application/json'],
  },
};
const implIds = (opt('impls') ?? 'ts,go,go-json').split(',') as (keyof typeof allImpls)[];
for (const id of implIds) if (!allImpls[id]) throw new Error(`--impls: unknown implementation ${JSON.stringify(id)}`);
const impls = implIds.map((id) => allImpls[id]);

const planOptions = { reps, qps, burst, latencyMs, memLimitMiB, impls };
const configs = buildPlan(opt, quick ? 'quick' : 'full', planOptions);
const defaults = { qps, burst, latencyMs };
const configKey = (c: Config) => keyOf(c, defaults);
if (findMemLimitMode && configs.some((c) => c.memLimitMiB > 0)) {
  console.error("--find-mem-limit finds the limit itself: drop --mem-limit-mib and the configs' m<MiB>");
  process.exit(2);
}

// ---- environment -----------------------------------------------------------------------------------
const pinned = pinSelf(0);
const binaries = await ensureControlPlaneBinaries({ build: true });
const firstLine = (cmd: string, args: string[]) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8' }).trim().split('\n')[0]!;
  } catch (err) {
    return `unknown (${(err as Error).message})`;
  }
};
const pkgVersion = (p: string) => (JSON.parse(readFileSync(p, 'utf8')) as { version: string }).version;
const versions = {
  node: process.version,
  go: firstLine('go', ['version', goBinary]).replace(`${goBinary}: `, ''),
  cloudProvider: firstLine(goBinary, ['--version']),
  kubeApiServer: firstLine(binaries.kubeApiServer, ['--version']),
  etcd: firstLine(binaries.etcd, ['--version']),
  clientNode: pkgVersion(join(repo, 'node_modules', '@kubernetes', 'client-node', 'package.json')),
  ccmKit: `${pkgVersion(join(tsRepo, 'packages', 'app', 'package.json'))} (${firstLine('git', ['-C', tsRepo, 'describe', '--always', '--dirty'])})`,
  cpus: `${cpus().length} × ${cpus()[0]?.model ?? '?'}`,
  pinning: pinned ? 'taskset: CCM on core 1; harness, etcd, kube-apiserver on core 0' : 'none (taskset not found)',
};

// ---- runs ------------------------------------------------------------------------------------------
const keepLogsDir = join(outDir, 'logs');
mkdirSync(keepLogsDir, { recursive: true });

const results: RunResult[] = [];
const started = Date.now();
const log = (msg: string) => console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s] ${msg}`);
log(`versions: ${JSON.stringify(versions)}`);
log(
  `plan: ${configs.map((c) => `${configKey(c)} ×${c.reps} [${c.impls.map((i) => i.id).join(',')}]`).join('; ')}${warmup ? '; warm-up first' : ''}`,
);

async function run(c: Config, impl: Impl, tag: string, timeoutMs?: number): Promise<RunResult> {
  gc!();
  const w = workloadById(c.workload);
  const { reps: _reps, impls: _impls, ...sizes } = c;
  const r = await runOnce({ ...sizes, impl, timeoutMs: timeoutMs ?? w.timeoutMs(sizes), keepLogsDir });
  const extra = Object.entries(r.extra)
    .map(([k, v]) => `${k} ${typeof v === 'boolean' || Number.isInteger(v) ? v : v.toFixed(3)}`)
    .join(', ');
  log(
    `${tag} ${configKey(c)} ${impl.id}: ${r.ok ? `wall ${r.wallS.toFixed(2)} s, cpu ${r.cpuS.toFixed(2)} s, hwm ${r.hwmMiB.toFixed(0)} MiB, api ${r.api.total} (writes ${r.api.writes}), 409 ${r.api.conflicts}${extra ? `, ${extra}` : ''}` : `FAILED: ${r.error}`} (load ${r.loadStart.toFixed(2)} → ${r.loadEnd.toFixed(2)})${r.problems.length ? ` problems: ${r.problems.join('; ')}` : ''}`,
  );
  return r;
}

const timeOf: Record<string, number> = {};
if (warmup && configs.length > 0) {
  const first = configs[0]!;
  // Small (W1, 30 Nodes, whatever the first config is: a W6 warm-up would idle for its minutes): it only warms
  // the page cache, the binaries and the control plane's start-up path.
  const small: Config = {
    ...first,
    workload: 'W1',
    nodes: 30,
    services: 0,
    k: 0,
    minutes: 0,
    newServices: 0,
    cloudRps: 0,
    groups: 0,
    batch: false,
  };
  for (const impl of first.impls) await run(small, impl, 'warm-up (discarded)');
}
const memLimits: MemLimitRow[] = [];
for (const c of configs) {
  const t0 = Date.now();
  if (findMemLimitMode) {
    // The baseline runs (no limit) go into the tables; each probe is one run, its wait bounded by the baseline's wall.
    for (const impl of c.impls) {
      const found = await findMemLimit(
        async (limitMiB, unlimitedWallS) => {
          const r = await run(
            { ...c, memLimitMiB: limitMiB },
            impl,
            limitMiB === 0 ? 'find-mem-limit, no limit' : `find-mem-limit, ${limitMiB} MiB`,
            limitMiB === 0 ? undefined : 120_000 + 3_000 * unlimitedWallS,
          );
          if (limitMiB === 0) results.push(r);
          return r;
        },
        { baselineRuns: c.reps },
      );
      memLimits.push({ config: configKey(c), impl: impl.label, found });
    }
    timeOf[configKey(c)] = (Date.now() - t0) / 1000;
    continue;
  }
  for (let rep = 0; rep < c.reps; rep++) {
    const order = abbaRound(c.impls, rep);
    if (workloadById(c.workload).concurrent) {
      results.push(
        ...(await Promise.all(order.map((impl) => run(c, impl, `rep ${rep + 1}/${c.reps} (side by side)`)))),
      );
    } else {
      for (const impl of order) results.push(await run(c, impl, `rep ${rep + 1}/${c.reps}`));
    }
  }
  timeOf[configKey(c)] = (Date.now() - t0) / 1000;
}

// ---- report ----------------------------------------------------------------------------------------
const totalMin = (Date.now() - started) / 60000;
const loads = results.map((r) => (r.loadStart + r.loadEnd) / 2);
const report = renderReport({
  title: `ccm-kit vs upstream Go CCM — ${new Date().toISOString()}`,
  header: [
    ...Object.entries(versions).map(([k, v]) => `${k}: ${v}`),
    `client QPS/burst ${qps}/${burst} unless a config says q<qps>/<burst>; fakebench latency ${latencyMs} ms unless a config says l<ms>; ${memLimitMiB > 0 ? `each CCM in a ${memLimitMiB} MiB memory cgroup` : 'no memory limit'} unless a config says mem; repetitions per config as in its row (ABBA order)${warmup ? '; one warm-up run per implementation discarded' : ''}`,
    `load average (1 min) during runs: median ${median(loads).toFixed(2)}, max ${Math.max(...results.map((r) => Math.max(r.loadStart, r.loadEnd))).toFixed(2)}; at the end ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' / ')}`,
    `time per config: ${Object.entries(timeOf)
      .map(([k, v]) => `${k} ${v.toFixed(0)} s`)
      .join('; ')}`,
    `**total time ${totalMin.toFixed(1)} min**`,
  ],
  configs,
  results,
  defaults,
});
const fullReport = memLimits.length > 0 ? `${report}\n\n${renderMemLimits(memLimits)}` : report;
console.log(fullReport);
mkdirSync(outDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
writeFileSync(join(outDir, `compare-${stamp}.md`), `${fullReport}\n`);
writeFileSync(
  join(outDir, `compare-${stamp}.json`),
  JSON.stringify(
    {
      versions,
      options: { quick, reps, qps, burst, latencyMs, memLimitMiB, findMemLimit: findMemLimitMode, taskset: taskset() },
      results,
      memLimits,
    },
    null,
    1,
  ),
);
log(`total ${totalMin.toFixed(1)} min; report: ${join(outDir, `compare-${stamp}.md`)} (raw runs: .json)`);

/**
 * Side-by-side benchmark: ccm-kit's cloud-controller-manager (bench/ts-ccm.ts) against the upstream Go
 * cloud-controller-manager built from k8s.io/cloud-provider (bench/upstream-ccm), both with the same
 * in-process fake cloud ("fakebench"), the same flags and the same RBAC, on a fresh real control plane
 * per run. See bench/README.md for what is measured and how to read the tables.
 *
 *   npm run bench:compare                       # full matrix (≈ 22 min on 2 cores)
 *   npm run bench:compare -- --quick            # one small config per workload, 1 repetition
 *   node --expose-gc bench/compare.ts [options] # after `tsc -b` and bench/upstream-ccm/build.sh
 *
 * Options: --quick, --reps=<n>, --impls=ts,go,go-json, --w1=<N:c,...>, --w2=<N:M:c,...> (empty disables),
 * --qps=<n> --burst=<n> (default 20/30), --latency-ms=<n> (fakebench latency, default 0), --no-warmup,
 * --out=<dir> (default ~/.cache/ccm-kit/bench/results), --ts-node-args='<node flags for the TS CCM>' (for example
 * '--cpu-prof --cpu-prof-dir=/tmp/prof'; NODE_OPTIONS refuses --cpu-prof).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, homedir, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureControlPlaneBinaries } from '@ccm-kit/testing';
import { diffStates } from './compare/parity.ts';
import { pinSelf, taskset } from './compare/process.ts';
import { type Impl, type ImplId, type RunResult, type RunSpec, runOnce } from './compare/run.ts';
import { median, medianIqr } from './compare/stats.ts';

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
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number, got ${JSON.stringify(v)}`);
  return n;
}
const known = ['quick', 'reps', 'impls', 'w1', 'w2', 'qps', 'burst', 'latency-ms', 'no-warmup', 'out', 'ts-node-args'];
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
const warmup = opt('no-warmup') !== 'true' && !quick;
const outDir = opt('out') ?? join(homedir(), '.cache', 'ccm-kit', 'bench', 'results');

/**
 * W1 configs `N:c`, W2 configs `N:M:c`, each optionally followed by `xR` (repetitions instead of --reps)
 * and `@impl+impl` (a subset of --impls), e.g. `1000:10x2@ts+go`.
 */
const DEFAULTS = {
  quick: { w1: '100:10', w2: '100:10:10' },
  full: { w1: '100:1,100:10,1000:10x1@ts+go', w2: '100:10:1,100:10:10,1000:100:10' },
};
interface ConfigText {
  sizes: number[];
  reps?: number;
  impls?: string[];
}
function parseConfigs(text: string, parts: number, flag: string): ConfigText[] {
  if (text.trim() === '') return [];
  return text.split(',').map((c) => {
    const m = /^([\d:]+)(?:x(\d+))?(?:@([a-z+-]+))?$/.exec(c.trim());
    const sizes = m ? m[1]!.split(':').map(Number) : [];
    if (!m || sizes.length !== parts || sizes.some((x) => !Number.isInteger(x) || x < 1)) {
      throw new Error(
        `--${flag}: ${JSON.stringify(c)} is not ${parts === 2 ? 'N:c' : 'N:M:c'} (positive integers) with optional xR and @impl+impl`,
      );
    }
    return { sizes, reps: m[2] ? Number(m[2]) : undefined, impls: m[3]?.split('+') };
  });
}
const defaults = quick ? DEFAULTS.quick : DEFAULTS.full;
const w1 = parseConfigs(opt('w1') ?? defaults.w1, 2, 'w1');
const w2 = parseConfigs(opt('w2') ?? defaults.w2, 3, 'w2');

// ---- implementations -------------------------------------------------------------------------------
function buildGo(): string {
  const out = execFileSync('bash', [join(here, 'upstream-ccm', 'build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').at(-1)!;
}
const goBinary = buildGo();
const allImpls: Record<ImplId, Impl> = {
  ts: {
    id: 'ts',
    label: 'ccm-kit (TS, JSON)',
    command: process.execPath,
    prefixArgs: [...(opt('ts-node-args')?.split(' ').filter(Boolean) ?? []), join(here, 'ts-ccm.ts')],
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
const implIds = (opt('impls') ?? 'ts,go,go-json').split(',') as ImplId[];
for (const id of implIds) if (!allImpls[id]) throw new Error(`--impls: unknown implementation ${JSON.stringify(id)}`);
const impls = implIds.map((id) => allImpls[id]);

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
  ccmKit: pkgVersion(join(repo, 'packages', 'app', 'package.json')),
  cpus: `${cpus().length} × ${cpus()[0]?.model ?? '?'}`,
  pinning: pinned ? 'taskset: CCM on core 1; harness, etcd, kube-apiserver on core 0' : 'none (taskset not found)',
};

// ---- plan ------------------------------------------------------------------------------------------
type Config = Pick<RunSpec, 'workload' | 'nodes' | 'services' | 'concurrency'> & { reps: number; impls: Impl[] };
function implsFor(t: ConfigText): Impl[] {
  if (!t.impls) return impls;
  for (const id of t.impls) if (!implIds.includes(id as ImplId)) throw new Error(`config implementation ${JSON.stringify(id)} is not in --impls`);
  return impls.filter((i) => t.impls!.includes(i.id));
}
const configs: Config[] = [
  ...w1.map((t) => ({
    workload: 'W1' as const,
    nodes: t.sizes[0]!,
    services: 0,
    concurrency: t.sizes[1]!,
    reps: t.reps ?? reps,
    impls: implsFor(t),
  })),
  ...w2.map((t) => ({
    workload: 'W2' as const,
    nodes: t.sizes[0]!,
    services: t.sizes[1]!,
    concurrency: t.sizes[2]!,
    reps: t.reps ?? reps,
    impls: implsFor(t),
  })),
];
const configKey = (c: Config) =>
  c.workload === 'W1' ? `W1 N=${c.nodes} c=${c.concurrency}` : `W2 N=${c.nodes} M=${c.services} c=${c.concurrency}`;
/** Generous: 4 requests per object at the client QPS, plus 2 minutes. */
const timeoutFor = (c: Config) => 120_000 + ((4 * (c.nodes + c.services)) / Math.max(qps, 1)) * 1000 * 2;
const keepLogsDir = join(outDir, 'logs');
mkdirSync(keepLogsDir, { recursive: true });

const results: RunResult[] = [];
const started = Date.now();
const log = (msg: string) => console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s] ${msg}`);
log(`versions: ${JSON.stringify(versions)}`);
log(
  `plan: ${configs.map((c) => `${configKey(c)} ×${c.reps} [${c.impls.map((i) => i.id).join(',')}]`).join('; ')}${warmup ? '; warm-up first' : ''}`,
);

async function run(c: Config, impl: Impl, tag: string): Promise<RunResult> {
  gc!();
  const { workload, nodes, services, concurrency } = c;
  const r = await runOnce({ workload, nodes, services, concurrency, qps, burst, latencyMs, impl, timeoutMs: timeoutFor(c), keepLogsDir });
  log(
    `${tag} ${configKey(c)} ${impl.id}: ${r.ok ? `wall ${r.wallS.toFixed(2)} s, cpu ${r.cpuS.toFixed(2)} s, hwm ${r.hwmMiB.toFixed(0)} MiB, api ${r.api.total}, 409 ${r.api.conflicts}` : `FAILED: ${r.error}`} (load ${r.loadStart.toFixed(2)} → ${r.loadEnd.toFixed(2)})${r.problems.length ? ` problems: ${r.problems.join('; ')}` : ''}`,
  );
  return r;
}

if (warmup && configs.length > 0) {
  const first = configs[0]!;
  // Small: it only warms the page cache, the binaries and the control plane's start-up path.
  const small = { ...first, nodes: Math.min(first.nodes, 30), services: Math.min(first.services, 10) };
  for (const impl of first.impls) await run(small, impl, 'warm-up (discarded)');
}
for (const c of configs) {
  for (let rep = 0; rep < c.reps; rep++) {
    // ABBA: A B C, then C B A, then A B C, ...
    const order = rep % 2 === 0 ? c.impls : [...c.impls].reverse();
    for (const impl of order) results.push(await run(c, impl, `rep ${rep + 1}/${c.reps}`));
  }
}

// ---- report ----------------------------------------------------------------------------------------
const lines: string[] = [];
const out = (s = '') => lines.push(s);
const runsOf = (c: Config, id: ImplId) =>
  results.filter(
    (r) =>
      r.ok &&
      r.workload === c.workload &&
      r.nodes === c.nodes &&
      r.services === c.services &&
      r.concurrency === c.concurrency &&
      r.impl === id,
  );
const failedOf = (c: Config, id: ImplId) =>
  results.filter(
    (r) =>
      !r.ok &&
      r.workload === c.workload &&
      r.nodes === c.nodes &&
      r.services === c.services &&
      r.concurrency === c.concurrency &&
      r.impl === id,
  ).length;
const col = (rs: RunResult[], f: (r: RunResult) => number, digits = 1) => medianIqr(rs.map(f), digits);
const cloudTotal = (r: RunResult) => Object.values(r.calls).reduce((a, b) => a + b, 0);

out(`# ccm-kit vs upstream Go CCM — ${new Date().toISOString()}`);
out();
for (const [k, v] of Object.entries(versions)) out(`- ${k}: ${v}`);
out(
  `- client QPS/burst ${qps}/${burst}; fakebench latency ${latencyMs} ms; repetitions per config as in its heading (ABBA order)${warmup ? '; one warm-up run per implementation discarded' : ''}`,
);
out(`- load average (1 min) during runs: median ${median(results.map((r) => (r.loadStart + r.loadEnd) / 2)).toFixed(2)}, max ${Math.max(...results.map((r) => Math.max(r.loadStart, r.loadEnd))).toFixed(2)}; at the end ${loadavg().map((x) => x.toFixed(2)).join(' / ')}`);
out(`- total time ${((Date.now() - started) / 60000).toFixed(1)} min`);
out();
out('Cells are median (IQR) over the repetitions.');

for (const workload of ['W1', 'W2'] as const) {
  const cs = configs.filter((c) => c.workload === workload);
  if (cs.length === 0) continue;
  out();
  out(
    workload === 'W1'
      ? '## W1: Node initialisation burst (N tainted Nodes exist before the CCM starts; wall and latency from CCM spawn)'
      : '## W2: LoadBalancer Services (M Services created after the CCM is up over N initialized Nodes; wall from first create, latency create → ingress)',
  );
  out();
  out(
    `| config | implementation | wall s | p50 s | p90 s | start-up s | then at rest s | CPU s${workload === 'W2' ? ' (Services share)' : ''} | VmHWM MiB | API requests | API writes | 409s | cloud calls | load 1m |`,
  );
  out('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of cs) {
    for (const impl of c.impls) {
      const rs = runsOf(c, impl.id);
      const failed = failedOf(c, impl.id);
      const cpu =
        workload === 'W2'
          ? `${col(rs, (r) => r.cpuS, 2)} (${median(rs.map((r) => r.cpuWorkloadS)).toFixed(2)})`
          : col(rs, (r) => r.cpuS, 2);
      out(
        `| ${configKey(c).replace(`${workload} `, '')} ×${c.reps}${failed ? ` (${failed} failed)` : ''} | ${impl.label} | ${col(rs, (r) => r.wallS, 2)} | ${col(rs, (r) => r.p50S, 2)} | ${col(rs, (r) => r.p90S, 2)} | ${col(rs, (r) => r.startupS, 2)} | ${col(rs, (r) => r.settleS, 1)} | ${cpu} | ${col(rs, (r) => r.hwmMiB, 0)} | ${col(rs, (r) => r.api.total, 0)} | ${col(rs, (r) => r.api.writes, 0)} | ${col(rs, (r) => r.api.conflicts, 0)} | ${col(rs, cloudTotal, 0)} | ${col(rs, (r) => (r.loadStart + r.loadEnd) / 2, 2)} |`,
      );
    }
  }
  // API requests by verb/resource and cloud calls by method, medians, per config.
  out();
  out(`### ${workload}: API requests by verb and resource, and cloud calls by method (medians per run)`);
  for (const c of cs) {
    out();
    const impls = c.impls;
    out(`**${configKey(c)}** (${c.reps} repetition${c.reps === 1 ? '' : 's'})`);
    out();
    out(`| request / call | ${impls.map((i) => i.label).join(' | ')} |`);
    out(`|---|${impls.map(() => '---').join('|')}|`);
    const apiKeys = new Set<string>();
    const callKeys = new Set<string>();
    for (const impl of impls) {
      for (const r of runsOf(c, impl.id)) {
        for (const k of Object.keys(r.api.byVerbResource)) apiKeys.add(k);
        for (const [k, v] of Object.entries(r.calls)) if (v > 0) callKeys.add(k);
      }
    }
    for (const k of [...apiKeys].sort()) {
      out(`| API ${k} | ${impls.map((i) => fmt(median(runsOf(c, i.id).map((r) => r.api.byVerbResource[k] ?? 0)))).join(' | ')} |`);
    }
    for (const code of ['409']) {
      out(`| API responses ${code} | ${impls.map((i) => fmt(median(runsOf(c, i.id).map((r) => r.api.byCode[code] ?? 0)))).join(' | ')} |`);
    }
    out(`| API other errors (≥400) | ${impls.map((i) => fmt(median(runsOf(c, i.id).map((r) => r.api.otherErrors)))).join(' | ')} |`);
    for (const k of [...callKeys].sort()) {
      out(`| cloud ${k} | ${impls.map((i) => fmt(median(runsOf(c, i.id).map((r) => r.calls[k] ?? 0)))).join(' | ')} |`);
    }
  }
}

function fmt(x: number): string {
  return Number.isNaN(x) ? '–' : Number.isInteger(x) ? String(x) : x.toFixed(1);
}

// ---- parity ----------------------------------------------------------------------------------------
out();
out('## Correctness parity (final Node and Service state, first successful run of each implementation; LB IPs normalized)');
out();
let parityIssues = 0;
for (const c of configs) {
  const firsts = c.impls.map((i) => ({ impl: i, run: runsOf(c, i.id)[0] }));
  const base = firsts[0]!;
  for (const other of firsts.slice(1)) {
    if (!base.run?.state || !other.run?.state) {
      out(`- ${configKey(c)}: ${base.impl.id} vs ${other.impl.id}: no successful run to compare`);
      continue;
    }
    const diffs = diffStates(base.run.state, other.run.state, base.impl.id, other.impl.id);
    if (diffs.length === 0) out(`- ${configKey(c)}: ${base.impl.id} vs ${other.impl.id}: identical (${Object.keys(base.run.state).length} objects)`);
    for (const d of diffs) {
      parityIssues++;
      out(`- ${configKey(c)}: ${base.impl.id} vs ${other.impl.id}: **${d.field}** differs on ${d.objects} object(s), e.g. ${d.example}`);
    }
  }
  for (const r of results.filter((x) => x.workload === c.workload && x.nodes === c.nodes && x.services === c.services && x.concurrency === c.concurrency)) {
    for (const p of r.problems) {
      if (!p.startsWith('CCM log kept')) parityIssues++;
      out(`- ${configKey(c)} ${r.impl}: ${p}`);
    }
  }
}
if (parityIssues === 0) out('- no differences and no invariant violations');

const report = lines.join('\n');
console.log(report);
mkdirSync(outDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
writeFileSync(join(outDir, `compare-${stamp}.md`), `${report}\n`);
writeFileSync(
  join(outDir, `compare-${stamp}.json`),
  JSON.stringify({ versions, options: { quick, reps, qps, burst, latencyMs, taskset: taskset() }, results }, null, 1),
);
log(`report: ${join(outDir, `compare-${stamp}.md`)} (raw runs: .json)`);

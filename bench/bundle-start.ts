/**
 * Start-up of a provider's CCM from its production bundle (`ccm-kit build`) against the unbundled entry
 * (`tsc` output resolving node_modules): `examples/minimal`, `node <entry> --help`, which loads the app, its
 * flags and the provider (the manager's modules load only for a real start) and exits. Per run: wall time from spawn
 * to exit, and the child's peak RSS (reported by the child itself at exit). Prints the median and range.
 *
 *   npx tsc -b && node bench/bundle-start.ts [runs]     (default 9 runs each, alternating)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle } from '@ccm-kit/cli';

const runs = Number(process.argv[2] ?? 9);
const dir = mkdtempSync(join(tmpdir(), 'ccm-kit-bundle-bench-'));
const report = join(dir, 'report-at-exit.mjs');
// VmHWM (Linux): the peak RSS of this program only. getrusage's maxRSS would include the parent's, which a
// forked child inherits on Linux.
writeFileSync(
  report,
  "import { readFileSync } from 'node:fs';\n" +
    "process.on('exit', () => { let kib = process.resourceUsage().maxRSS; try { kib = Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]); } catch {} process.stderr.write(`\\nBENCH ${kib}\\n`); });\n",
);
const built = await bundle('examples/minimal/src/main.ts', join(dir, 'main.mjs'));
const entries = { unbundled: 'examples/minimal/dist/main.js', bundle: built.outfile };

const samples: Record<string, { ms: number; rssMiB: number }[]> = { unbundled: [], bundle: [] };
for (let i = 0; i < runs; i++) {
  for (const [name, entry] of Object.entries(entries)) {
    const started = performance.now();
    const r = spawnSync(process.execPath, ['--import', report, entry, '--help'], { encoding: 'utf8' });
    const ms = performance.now() - started;
    const rss = /BENCH (\d+)/.exec(r.stderr)?.[1];
    if (r.status !== 0 || !rss) throw new Error(`${name}: exit ${r.status}\n${r.stderr}`);
    samples[name]!.push({ ms, rssMiB: Number(rss) / 1024 });
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`bundle: ${(built.bytes / 1024 / 1024).toFixed(2)} MiB, built in ${built.ms} ms; ${runs} runs each`);
for (const [name, s] of Object.entries(samples)) {
  const ms = s.map((x) => x.ms);
  const rss = s.map((x) => x.rssMiB);
  console.log(
    `${name.padEnd(9)}  start ${median(ms).toFixed(0)} ms (${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)})` +
      `   peak RSS ${median(rss).toFixed(1)} MiB (${Math.min(...rss).toFixed(1)}–${Math.max(...rss).toFixed(1)})`,
  );
}
rmSync(dir, { recursive: true, force: true });

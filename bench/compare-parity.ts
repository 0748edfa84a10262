/**
 * The parity diff of two bench:compare invocations, for runs too long to share one (W8 at 50,000 Nodes: one
 * invocation per implementation). Reads the raw-runs JSON each wrote next to its report and diffs the final state of
 * the first successful run of each, per config with the same sizes (the memory limit aside).
 *
 *   node bench/compare-parity.ts <a.json> <b.json>
 *
 * Prints one line per config, as the report's parity section; exits 1 when any differs or has no run to compare.
 */
import { readFileSync } from 'node:fs';
import { diffStates, type StateDump } from './compare/parity.ts';

interface RawRun {
  workload: string;
  nodes: number;
  services: number;
  impl: string;
  ok: boolean;
  state?: StateDump;
}

const [fileA, fileB] = process.argv.slice(2);
if (!fileA || !fileB) {
  console.error('usage: node bench/compare-parity.ts <a.json> <b.json>');
  process.exit(2);
}
const runs = (file: string): RawRun[] => (JSON.parse(readFileSync(file, 'utf8')) as { results: RawRun[] }).results;
const key = (r: RawRun) => `${r.workload} N=${r.nodes} M=${r.services}`;
const firstOk = (rs: RawRun[]) => {
  const out = new Map<string, RawRun>();
  for (const r of rs) if (r.ok && r.state && !out.has(key(r))) out.set(key(r), r);
  return out;
};
const a = firstOk(runs(fileA));
const b = firstOk(runs(fileB));
let failed = false;
for (const k of new Set([...a.keys(), ...b.keys()])) {
  const x = a.get(k);
  const y = b.get(k);
  if (!x?.state || !y?.state) {
    failed = true;
    console.log(`- ${k}: no successful run in ${x ? fileB : fileA}`);
    continue;
  }
  const diffs = diffStates(x.state, y.state, x.impl, y.impl);
  if (diffs.length === 0) {
    console.log(`- ${k}: ${x.impl} vs ${y.impl}: identical (${Object.keys(x.state).length} objects)`);
    continue;
  }
  failed = true;
  console.log(`- ${k}: ${x.impl} vs ${y.impl}: ${diffs.length} kinds of difference`);
  for (const d of diffs) console.log(`  - ${d.field}: ${d.objects} objects, e.g. ${d.example}`);
}
process.exit(failed ? 1 : 0);

#!/usr/bin/env node
/**
 * `npm run chaos [-- --profile short|long] [--seed N] [--ipam]`: one chaos run against real processes (see README.md).
 * Prints the seed first and a report last; exits 1 when an invariant fails or an argument is wrong (naming it),
 * 0 after `--help`.
 */
import { parseChaosArgs } from './src/args.ts';

const args = parseChaosArgs(process.argv.slice(2));
if (args.kind === 'help') {
  process.stdout.write(args.text);
  process.exit(0);
}
if (args.kind === 'error') {
  process.stderr.write(`chaos: ${args.text}\n`);
  process.exit(1);
}
// Loaded after the arguments are read: `--help` need not load the cluster and client code.
const { runChaos } = await import('./src/chaos.ts');
const { profiles } = await import('./src/profiles.ts');
const { formatReport } = await import('./src/report.ts');
const { seed } = args;
const profile = profiles[args.profile];
process.stdout.write(`chaos: profile ${profile.name}, seed ${seed}${args.ipam ? ', with node IPAM' : ''}\n`);
const started = Date.now();
const result = await runChaos(
  profile,
  seed,
  (line) => process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`),
  { ipam: args.ipam },
);
process.stdout.write(`\n${formatReport(result)}\n`);
process.exit(result.ok ? 0 : 1);

#!/usr/bin/env node
/**
 * `npm run chaos [-- --profile short|long] [--seed N]`: one chaos run against real processes (see README.md).
 * Prints the seed first and a report last; exits 1 when an invariant fails.
 */
import { parseArgs } from 'node:util';
import { runChaos } from './src/chaos.ts';
import { profiles } from './src/profiles.ts';
import { formatReport } from './src/report.ts';

const { values } = parseArgs({
  options: { profile: { type: 'string', default: 'short' }, seed: { type: 'string' } },
});
const profile = profiles[values.profile as keyof typeof profiles];
if (!profile) {
  process.stderr.write(`--profile must be short or long, got ${JSON.stringify(values.profile)}\n`);
  process.exit(2);
}
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
if (!Number.isInteger(seed) || seed < 0) {
  process.stderr.write(`--seed must be a non-negative integer, got ${JSON.stringify(values.seed)}\n`);
  process.exit(2);
}
process.stdout.write(`chaos: profile ${profile.name}, seed ${seed}\n`);
const started = Date.now();
const result = await runChaos(profile, seed, (line) =>
  process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`),
);
process.stdout.write(`\n${formatReport(result)}\n`);
process.exit(result.ok ? 0 : 1);

/**
 * The ccm-kit side of bench:compare as a vendor ships it: bench/ts-ccm.ts bundled by `ccm-kit build`'s
 * code path (`bundle()` of @ccm-kit/cli, rolldown, decision 0072) into one ES module, run as the scaffolded
 * image runs its bundle. Built once per source version and cached by a hash of its inputs (the entry, the
 * fake cloud's `bench/fakebench*.ts`, the built `dist` of the workspace packages and package-lock.json), like the Go binary.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { bundle } from '@ccm-kit/cli';
import { nodeOptions } from 'create-ccm-kit';

/** The environment the scaffolded image gives the CCM (`ENV NODE_OPTIONS` of create-ccm-kit's Dockerfile). */
export const vendorEnv: Record<string, string> = { NODE_OPTIONS: nodeOptions };
// No NODE_COMPILE_CACHE, as the image: bench/compile-cache-start.ts measures what one would change (packages/cli/README.md,
// "Figures").

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.name.endsWith('.js')) yield p;
  }
}

/**
 * The path of the bundle of `<repo>/bench/ts-ccm.ts`, building it when the cache has none for these sources.
 * @throws Error with rolldown's diagnostics when the bundle cannot be built.
 */
export async function tsCcmBundle(repo: string, log: (line: string) => void): Promise<string> {
  const h = createHash('sha256');
  const bench = readdirSync(join(repo, 'bench'))
    .filter((f) => f === 'ts-ccm.ts' || f.startsWith('fakebench'))
    .sort()
    .map((f) => join(repo, 'bench', f));
  const inputs = [...bench, join(repo, 'package-lock.json')];
  for (const pkg of readdirSync(join(repo, 'packages')).sort()) {
    const dist = join(repo, 'packages', pkg, 'dist');
    if (existsSync(dist)) inputs.push(...files(dist));
  }
  for (const f of inputs) h.update(f.slice(repo.length)).update('\0').update(readFileSync(f)).update('\0');
  const dir = join(homedir(), '.cache', 'ccm-kit', 'bench', 'ts-bundle', h.digest('hex').slice(0, 16));
  const outfile = join(dir, 'ts-ccm.mjs');
  if (existsSync(outfile)) return outfile;
  // Built aside and renamed into place, so an interrupted build never leaves a partial bundle in the cache.
  const tmp = `${dir}.tmp-${process.pid}`;
  const r = await bundle(join(repo, 'bench', 'ts-ccm.ts'), join(tmp, 'ts-ccm.mjs'));
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  log(
    `bundled bench/ts-ccm.ts with ccm-kit build: ${(r.bytes / 1024 / 1024).toFixed(2)} MiB in ${r.ms} ms → ${outfile}`,
  );
  return outfile;
}

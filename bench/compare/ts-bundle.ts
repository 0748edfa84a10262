/**
 * The ccm-kit side of bench:compare as a vendor ships it: bench/ts-ccm.ts bundled by `ccm-kit build`'s
 * code path (`bundle()` of @ccm-kit/cli, rolldown, decision 0072) into one ES module, run as the scaffolded
 * image runs its bundle: with its `NODE_OPTIONS` and Node's compile cache filled by the bundle's
 * `fill-compile-cache.mjs` (decision 0417). Built once per source version and cached by a hash of its inputs (the
 * entry, the fake cloud's `bench/fakebench*.ts`, the built `dist` of the workspace packages and package-lock.json),
 * like the Go binary.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { bundle, FILL_COMPILE_CACHE } from '@ccm-kit/cli';
import { compileCacheDir, nodeOptions } from 'create-ccm-kit';

/**
 * The environment the scaffolded image gives the CCM: `ENV NODE_OPTIONS` of create-ccm-kit's Dockerfile and, for
 * a bundle, its `ENV NODE_COMPILE_CACHE` (the cache next to the bundle, as the image's `/app/.compile-cache`).
 * Unlike the image's read-only cache this one is writable: a run adds the bundle's entry file (under 1 KB).
 */
export function vendorEnv(bundleFile?: string): Record<string, string> {
  return bundleFile
    ? { NODE_OPTIONS: nodeOptions, NODE_COMPILE_CACHE: compileCacheOf(bundleFile) }
    : { NODE_OPTIONS: nodeOptions };
}

/** The compile cache next to the bundle, named as the image's next to its bundle in `/app`. */
const compileCacheOf = (bundleFile: string) => join(dirname(bundleFile), basename(compileCacheDir));

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
  // A bundle cached before `ccm-kit build` wrote the fill script is built again.
  if (existsSync(outfile) && existsSync(join(dir, FILL_COMPILE_CACHE))) return fillCompileCache(outfile);
  // Built aside and renamed into place, so an interrupted build never leaves a partial bundle in the cache.
  const tmp = `${dir}.tmp-${process.pid}`;
  const r = await bundle(join(repo, 'bench', 'ts-ccm.ts'), join(tmp, 'ts-ccm.mjs'));
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  log(
    `bundled bench/ts-ccm.ts with ccm-kit build: ${(r.bytes / 1024 / 1024).toFixed(2)} MiB in ${r.ms} ms → ${outfile}`,
  );
  return fillCompileCache(outfile);
}

/**
 * Fills the bundle's compile cache as the image's build does, once: after the bundle is in its final place (Node
 * keys the cache by each module's path), into a directory renamed into place when complete.
 * @throws Error with the script's output when it fails.
 */
function fillCompileCache(outfile: string): string {
  const cache = compileCacheOf(outfile);
  if (existsSync(cache)) return outfile;
  const tmp = `${cache}.tmp-${process.pid}`;
  try {
    fillCompileCacheInto(outfile, tmp);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  renameSync(tmp, cache);
  return outfile;
}

/**
 * Runs the bundle's fill script (decision 0417) with the image's `NODE_OPTIONS`, `nodeArgs` before it on the
 * command line (V8 keys a cache by its flags), the cache in `dir`.
 * @throws Error with the script's output when it fails.
 */
export function fillCompileCacheInto(bundleFile: string, dir: string, nodeArgs: readonly string[] = []): void {
  const r = spawnSync(process.execPath, [...nodeArgs, join(dirname(bundleFile), FILL_COMPILE_CACHE)], {
    env: { ...process.env, ...vendorEnv(), NODE_COMPILE_CACHE: dir },
    encoding: 'utf8',
  });
  if (r.status !== 0)
    throw new Error(`${[...nodeArgs, FILL_COMPILE_CACHE].join(' ')} exited ${r.status}: ${r.stderr}${r.stdout}`);
}

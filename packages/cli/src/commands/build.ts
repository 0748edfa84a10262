/**
 * `ccm-kit build`: bundles the provider's entry point (its `main`) and everything it imports into one
 * ES module (plus chunks of what is only imported dynamically, loaded on demand) for production images, with rolldown (the bundler Vite is built on): no node_modules in the
 * image, and a faster start than resolving hundreds of modules.
 */
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'rolldown';
import { UsageError } from '../usage-error.js';
import { callerTable } from './caller-table.js';

export const BUILD_USAGE = `ccm-kit build [--entry src/main.ts] [--outfile dist/bundle/main.mjs] [--no-minify]

  --entry <file>     the provider's main (TypeScript or JavaScript; default src/main.ts)
  --outfile <file>   the bundle (default dist/bundle/main.mjs, chunks loaded on demand in chunks/ next to it);
                     run it with: node dist/bundle/main.mjs (ship the directory)
  --no-minify        keep the code readable (names are kept either way, for stack traces)`;

/** What {@link bundle} wrote. */
export interface BundleResult {
  /** The bundle's entry file, as given (`dist/bundle/main.mjs` by default); its chunks are in `chunks/` next to it. */
  outfile: string;
  /** Size in bytes of the bundle and its chunks. */
  bytes: number;
  /** Wall time of the build in milliseconds. */
  ms: number;
}

/** client-node's default HTTP library (undici's `fetch`), which no ccm-kit client sends through. */
const CLIENT_NODE_FETCH = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]gen[\\/]http[\\/]isomorphic-fetch\.js$/;

/** The directory, next to the bundle, of the chunks it loads on demand (decision 0414). */
export const CHUNKS_DIR = 'chunks';

/**
 * Bundles `entry` into `outfile` (ES module, Node platform, source map next to it, without the sources' text),
 * and what it imports dynamically into `chunks/` next to it (emptied first), loaded only when imported.
 * @throws Error with rolldown's diagnostics when a module cannot be resolved or parsed.
 */
export async function bundle(entry: string, outfile: string, minify = true): Promise<BundleResult> {
  const started = performance.now();
  const dir = dirname(outfile);
  await rm(join(dir, CHUNKS_DIR), { recursive: true, force: true });
  await build({
    input: entry,
    platform: 'node',
    logLevel: 'warn',
    // client-node's `gen/http/http.js` (ResponseContext, RequestContext) re-exports its default HTTP library, whose
    // module imports all of undici (5–7 MiB of a small CCM's peak, bench/results/2026-11-29-start-path.md); it has
    // no side effects, so when nothing uses that library (ccm-kit sends through its own transport) it and undici stay
    // out of the start path.
    treeshake: { moduleSideEffects: (id) => (CLIENT_NODE_FETCH.test(id) ? false : undefined) },
    output: {
      dir,
      entryFileNames: basename(outfile),
      // Dynamic imports (secure serving's certificate library and client-node's typed API, used only in some
      // configurations) become chunks: V8 compiles a one-file bundle's lazily initialized modules eagerly
      // (rolldown wraps them in parenthesized functions), ~27 MiB and ~0.05 CPU s at start (decision 0414).
      chunkFileNames: `${CHUNKS_DIR}/[name]-[hash].mjs`,
      format: 'esm',
      minify,
      keepNames: true,
      sourcemap: true,
      // CommonJS dependencies call require() for Node's built-ins; give the ES module one.
      banner:
        "import { createRequire as __ccmKitCreateRequire } from 'node:module'; const require = __ccmKitCreateRequire(import.meta.url);",
    },
  });
  const files = [
    outfile,
    ...(await readdir(join(dir, CHUNKS_DIR)).catch(() => [])).map((f) => join(dir, CHUNKS_DIR, f)),
  ];
  let bytes = 0;
  for (const f of files) {
    if (f.endsWith('.map')) await finishSourceMap(f);
    else if (f.endsWith('.mjs')) bytes += (await stat(f)).size;
  }
  // The chunks' maps were listed above; the entry's is next to it.
  await finishSourceMap(`${outfile}.map`);
  return { outfile, bytes, ms: Math.round(performance.now() - started) };
}

/**
 * Writes the caller table next to a bundle file (`caller-table.ts`, decision 0415), then removes the copies of
 * the original sources from its source map (decision 0411): with `--enable-source-maps`
 * Node parses and keeps the whole map for the life of the process, and the sources are nine tenths of it
 * (+87 MiB RSS for bench/ts-ccm.ts against +13 MiB without them). Stack traces need only the mappings.
 */
async function finishSourceMap(mapFile: string): Promise<void> {
  const map = JSON.parse(await readFile(mapFile, 'utf8')) as {
    sourcesContent?: unknown;
    sources: (string | null)[];
    mappings: string;
  };
  await writeFile(mapFile.replace(/\.map$/, '.callers.json'), JSON.stringify(callerTable(map)));
  if (map.sourcesContent === undefined) return;
  delete map.sourcesContent;
  await writeFile(mapFile, JSON.stringify(map));
}

/** Runs the command in `cwd`. */
export async function buildCommand(argv: string[], cwd: string, out: (text: string) => void): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      entry: { type: 'string', default: 'src/main.ts' },
      outfile: { type: 'string', default: 'dist/bundle/main.mjs' },
      'no-minify': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const entry = resolve(cwd, values.entry);
  if (!(await stat(entry).catch(() => undefined)))
    throw new UsageError(`--entry: ${values.entry} does not exist in ${cwd}`);
  const r = await bundle(entry, resolve(cwd, values.outfile), !values['no-minify']);
  out(`bundled ${values.entry} into ${values.outfile} (${(r.bytes / 1024 / 1024).toFixed(2)} MiB) in ${r.ms} ms`);
}

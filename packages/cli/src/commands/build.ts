/**
 * `ccm-kit build`: bundles the provider's entry point (its `main`) and everything it imports into one
 * ES module (plus chunks of what is only imported dynamically, loaded on demand) for production images, with rolldown (the bundler Vite is built on): no node_modules in the
 * image, and a faster start than resolving hundreds of modules.
 */
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build, type OutputChunk } from 'rolldown';
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
 * The script, next to the bundle, that fills Node's compile cache with the chunks' compiled code without running
 * the bundle (decision 0417): `NODE_COMPILE_CACHE=<dir> node fill-compile-cache.mjs`, as the scaffolded image's
 * build does.
 */
export const FILL_COMPILE_CACHE = 'fill-compile-cache.mjs';

/**
 * Bundles `entry` into `outfile` (ES module, Node platform, source map next to it, without the sources' text),
 * and what it imports dynamically into `chunks/` next to it (emptied first), loaded only when imported.
 * @throws Error with rolldown's diagnostics when a module cannot be resolved or parsed.
 */
export async function bundle(entry: string, outfile: string, minify = true): Promise<BundleResult> {
  const started = performance.now();
  const dir = dirname(outfile);
  await rm(join(dir, CHUNKS_DIR), { recursive: true, force: true });
  const built = await build({
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
      // No `createRequire` banner: bundled CommonJS modules require Node's built-ins through rolldown's runtime
      // (`__require`, one `createRequire` for the bundle); a banner ran one more in every chunk at start.
    },
  });
  await writeFile(join(dir, FILL_COMPILE_CACHE), fillCompileCacheScript(chunksToFill(built.output)));
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
 * The chunks the fill script may load: every one whose static imports do not reach the entry (loading the entry
 * starts the manager). rolldown puts modules shared with the entry in chunks of their own, so in practice that
 * is every chunk.
 */
function chunksToFill(output: readonly { type: string }[]): string[] {
  const chunks = new Map(
    output.filter((o): o is OutputChunk => o.type === 'chunk').map((c) => [c.fileName, c] as const),
  );
  const reachesEntry = new Map<string, boolean>();
  const reaches = (fileName: string): boolean => {
    const known = reachesEntry.get(fileName);
    if (known !== undefined) return known;
    reachesEntry.set(fileName, false); // a cycle does not reach the entry through itself
    const chunk = chunks.get(fileName);
    const r = !!chunk && (chunk.isEntry || chunk.imports.some(reaches));
    reachesEntry.set(fileName, r);
    return r;
  };
  return [...chunks.keys()].filter((f) => !reaches(f)).sort();
}

/**
 * The fill script: imports each listed chunk (its module's top level runs; a failure is reported and the rest
 * continue, since Node caches a module's code before running it), then exits, so that nothing a chunk started
 * keeps the build step waiting. It refuses to run without a compile cache directory.
 */
function fillCompileCacheScript(chunks: string[]): string {
  return `// Written by \`ccm-kit build\`: loads the bundle's chunks (not its entry, which would start the manager) so
// that Node's compile cache holds their compiled code. Run it once where the image runs the bundle, as the same
// user and with the same NODE_OPTIONS (Node keys the cache by both):
//   NODE_COMPILE_CACHE=<dir> node ${FILL_COMPILE_CACHE}
import * as nodeModule from 'node:module';
const dir = nodeModule.getCompileCacheDir?.();
if (!dir) {
  process.stderr.write('${FILL_COMPILE_CACHE}: NODE_COMPILE_CACHE is not set: set it to the directory the CCM will run with\\n');
  process.exit(2);
}
const chunks = ${JSON.stringify(
    chunks.map((c) => `./${c}`),
    null,
    2,
  )};
let failed = 0;
for (const chunk of chunks) {
  try {
    await import(chunk);
  } catch (err) {
    failed++;
    process.stderr.write(\`${FILL_COMPILE_CACHE}: \${chunk} threw while loading (its code is cached all the same): \${err?.message ?? err}\\n\`);
  }
}
process.stdout.write(\`filled Node's compile cache in \${dir} with \${chunks.length - failed} of \${chunks.length} chunks\\n\`);
process.exit(0);
`;
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

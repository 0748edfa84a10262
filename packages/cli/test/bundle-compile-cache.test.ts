/**
 * A `ccm-kit build` bundle's `fill-compile-cache.mjs` (decision 0417) fills Node's compile cache with every chunk
 * without running the bundle's entry: a later start reads the chunks' code from the cache (Node's own debug
 * output, `NODE_DEBUG_NATIVE=COMPILE_CACHE`, says which it accepted); a chunk that throws while loading is
 * reported and cached all the same; without `NODE_COMPILE_CACHE` it refuses to run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, FILL_COMPILE_CACHE } from '../src/commands/build.js';

const work = mkdtempSync(join(tmpdir(), 'ccm-kit-fill-cache-'));
const dir = join(work, 'bundle');
const marker = join(work, 'entry-ran');

beforeAll(async () => {
  await bundle(join(import.meta.dirname, 'fixtures', 'fill-cache-entry.ts'), join(dir, 'main.mjs'));
}, 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

function node(file: string, env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [join(dir, file)], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, NODE_COMPILE_CACHE: undefined, FILL_CACHE_MARKER: marker, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const chunkFiles = () => readdirSync(join(dir, 'chunks')).filter((f) => f.endsWith('.mjs'));

describe('fill-compile-cache.mjs', () => {
  it('caches every chunk without running the entry, and a start then accepts the cached chunks', () => {
    const cache = join(work, 'cache');
    const fill = node(FILL_COMPILE_CACHE, { NODE_COMPILE_CACHE: cache });
    expect(fill.status, fill.stderr).toBe(0);
    const chunks = chunkFiles();
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(fill.stdout).toContain(`with ${chunks.length - 1} of ${chunks.length} chunks`);
    // The throwing module's chunk is named, and the others still loaded.
    expect(fill.stderr).toMatch(/chunks\/fill-cache-throws-[\w-]+\.mjs threw while loading .*no configuration here/);
    expect(existsSync(marker)).toBe(false);

    const start = node('main.mjs', { NODE_COMPILE_CACHE: cache, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(start.status, start.stderr).toBe(0);
    expect(start.stdout).toContain('hello from a chunk');
    expect(existsSync(marker)).toBe(true);
    const lazy = chunks.find((c) => c.startsWith('fill-cache-lazy-'));
    expect(lazy).toBeDefined();
    expect(start.stderr).toMatch(
      new RegExp(`code cache for ESM \\S+/chunks/${lazy!.replace('.', '\\.')} was accepted`),
    );
  });

  it('caches a chunk that throws while loading: a start that loads it accepts its code', () => {
    const cache = join(work, 'cache-throws');
    expect(node(FILL_COMPILE_CACHE, { NODE_COMPILE_CACHE: cache }).status).toBe(0);
    const start = node('main.mjs', {
      NODE_COMPILE_CACHE: cache,
      NODE_DEBUG_NATIVE: 'COMPILE_CACHE',
      FILL_CACHE_THROW: '1',
    });
    expect(start.status).not.toBe(0);
    expect(start.stderr).toMatch(/code cache for ESM \S+\/chunks\/fill-cache-throws-[\w-]+\.mjs was accepted/);
  });

  it('refuses to run without NODE_COMPILE_CACHE, naming the variable', () => {
    const r = node(FILL_COMPILE_CACHE, {});
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('NODE_COMPILE_CACHE is not set');
  });
});

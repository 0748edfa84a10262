/**
 * A freshly scaffolded project on disk, type-checked with the project's own tsconfig.test.json (src/ and test/): the
 * ccm-kit packages and third-party types resolve through a `node_modules` link to the repository's, so the
 * check sees the packages as a vendor's install does (their `types` exports, the built `.d.ts`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Facet } from '../src/options.js';
import { projectFiles } from '../src/scaffold.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Writes the project for `provider` and `facets`, then `extra` files over it; returns its directory. */
export function writeScaffold(provider: string, facets: Facet[], extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'ccm-kit-scaffold-'));
  for (const [path, content] of Object.entries({ ...projectFiles({ dir, provider, facets }), ...extra })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(
    join(dir, 'tsconfig.check.json'),
    JSON.stringify({
      extends: './tsconfig.test.json',
      include: ['src', 'test', 'docs'],
    }),
  );
  return dir;
}

/** Runs tsc over src/, test/ and docs/ of `dir`; `output` holds tsc's diagnostics. */
export function typeCheck(dir: string): { status: number | null; output: string } {
  const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.check.json'], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Removes a project written by {@link writeScaffold}. */
export function removeScaffold(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

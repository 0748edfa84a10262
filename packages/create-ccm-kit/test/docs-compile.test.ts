/**
 * The TypeScript of the vendor-facing pages compiles in a freshly scaffolded project: every ```ts block of
 * these pages is preceded by `<!-- compile: <file>` (optionally followed by the lines the page's prose supplies,
 * such as a `declare` for "your SDK"), written to that file of a new `mycloud` project — blocks naming one file
 * are joined in order — and the project is type-checked with its own tsconfig. A package a block imports must be
 * a dependency of the scaffold or named in an `npm install` line of the page.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { projectFiles } from '../src/scaffold.js';
import { removeScaffold, typeCheck, writeScaffold } from './scaffold-project.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PAGES = [
  'getting-started.md',
  'cloud-call-guard.md',
  'annotations.md',
  'provider-lifecycle.md',
  'service-capabilities.md',
];

interface Block {
  page: string;
  file: string | undefined;
  preamble: string;
  code: string;
}

/** The ```ts blocks of a page with the `<!-- compile: … -->` comment right above each (if any). */
function blocksOf(page: string): Block[] {
  const text = readFileSync(join(repoRoot, 'docs', page), 'utf8');
  return [...text.matchAll(/(?:<!-- compile: (\S+)\n?([\s\S]*?)-->\n)?```ts\n([\s\S]*?)```/g)].map((m) => ({
    page,
    file: m[1],
    preamble: m[2] ?? '',
    code: m[3]!,
  }));
}

const blocks = PAGES.flatMap(blocksOf);

describe('the TypeScript of the docs compiles in a scaffolded project', () => {
  it('every ```ts block names the file it goes in', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(12);
    expect(blocks.filter((b) => !b.file).map((b) => `${b.page}: ${b.code.split('\n')[0]}`)).toEqual([]);
  });

  it('imports only what the scaffold declares or the page says to install', () => {
    const pkg = JSON.parse(projectFiles({ dir: '/x', provider: 'mycloud', facets: ['instancesV2'] })['package.json']!);
    const declared = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]);
    const missing: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(join(repoRoot, 'docs', page), 'utf8');
      const installed = new Set([...text.matchAll(/^npm install (.+)$/gm)].flatMap((m) => m[1]!.split(/\s+/)));
      for (const b of blocks.filter((x) => x.page === page)) {
        for (const m of `${b.preamble}\n${b.code}`.matchAll(/from '([^'.][^']*)'/g)) {
          const spec = m[1]!;
          if (spec.startsWith('node:')) continue;
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
          if (!declared.has(name) && !installed.has(name)) missing.push(`${page}: ${name}`);
        }
      }
    }
    expect([...new Set(missing)]).toEqual([]);
  });

  it('type-checks', () => {
    const files: Record<string, string> = {};
    for (const b of blocks) {
      const path = b.file!;
      files[path] = files[path] === undefined ? `${b.preamble}${b.code}` : `${files[path]}\n${b.code}`;
    }
    const dir = writeScaffold('mycloud', ['instancesV2', 'loadBalancer'], files);
    try {
      const { status, output } = typeCheck(dir);
      expect(output).toBe('');
      expect(status).toBe(0);
    } finally {
      removeScaffold(dir);
    }
  }, 180_000);
});

/**
 * The app's folders (flags, options, serving, webhooks, manager; files directly in src/ count one each) must
 * not import each other in a cycle: shared pieces go into a module below both (for example src/errors.ts).
 * Imports are read from the sources, type-only imports included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The folder of a file under src/ (`options`), or the file itself when it sits in src/ (`errors.ts`). */
function unitOf(file: string): string {
  const rel = relative(SRC, file).split(sep).join(posix.sep);
  return rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : rel;
}

/** Relative import specifiers of a TypeScript source (`import … from`, `export … from`, `import(…)`). */
export function relativeImports(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) out.push(m[1]!);
  return out;
}

/** Folder → folders it imports (self-imports left out). */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const from = unitOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
      const to = unitOf(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      if (to !== from) edges.add(to);
    }
  }
  return graph;
}

/** Every elementary cycle found by a depth-first search, each as `a -> b -> a`. */
export function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const found = new Set<string>();
  const visit = (node: string, path: string[]) => {
    for (const next of graph.get(node) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) {
        const loop = path.slice(at);
        const start = loop.indexOf([...loop].sort()[0]!); // one spelling per cycle
        found.add([...loop.slice(start), ...loop.slice(0, start), loop[start]].join(' -> '));
      } else {
        visit(next, [...path, next]);
      }
    }
  };
  for (const node of graph.keys()) visit(node, [node]);
  return [...found].sort();
}

describe('app folder imports', () => {
  it('the detector finds a cycle when there is one', () => {
    const g = new Map([
      ['options', new Set(['serving'])],
      ['serving', new Set(['manager'])],
      ['manager', new Set(['options'])],
    ]);
    expect(cycles(g)).toEqual(['manager -> options -> serving -> manager']);
    expect(
      relativeImports(
        `import type { A } from '../options/config.js';\nexport * from './x.js';\nawait import('../y.js');`,
      ),
    ).toEqual(['../options/config.js', './x.js', '../y.js']);
  });

  it('no folder-level import cycle in packages/app/src', () => {
    const graph = folderGraph();
    expect(graph.has('manager') && graph.has('options') && graph.has('serving')).toBe(true);
    expect(cycles(graph)).toEqual([]);
  });
});

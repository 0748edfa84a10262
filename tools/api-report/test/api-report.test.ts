import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { entryPoints, REPO_ROOT, reportProblems, runApiReports } from '../api-report.ts';

describe('public API reports (packages/*/api/*.api.md)', () => {
  it('the built declarations of every entry point match the committed report', () => {
    const results = runApiReports();
    expect(results.map((r) => r.entryPoint.specifier)).toContain('@ccm-kit/runtime');
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(results.flatMap((r) => r.problems.map((p) => `${r.entryPoint.specifier}: ${p}`))).toEqual([]);
    const changed = results.filter((r) => r.changed).map((r) => r.entryPoint.specifier);
    expect(changed, 'the public surface changed: run `npm run api:update` and commit packages/*/api').toEqual([]);
  }, 180_000);
});

describe('entry point sources', () => {
  it('list their exports by name: no `export *`, so a new module is not public by accident', () => {
    const offenders: string[] = [];
    for (const entry of entryPoints()) {
      const pkg = JSON.parse(readFileSync(join(entry.packageDir, 'package.json'), 'utf8')) as {
        exports: Record<string, { source?: string }>;
      };
      const source = pkg.exports[entry.subpath]?.source;
      if (!source) continue;
      const text = readFileSync(join(entry.packageDir, source), 'utf8');
      const barrels = text.split('\n').filter((line) => /^export \* from/.test(line));
      offenders.push(...barrels.map((line) => `${entry.specifier}: ${line}`));
    }
    expect(offenders).toEqual([]);
  });
});

describe('the report check itself', () => {
  // Under the repo's node_modules so that the `node` types resolve as they do for the real packages.
  const cacheDir = join(REPO_ROOT, 'node_modules', '.cache');
  mkdirSync(cacheDir, { recursive: true });
  const root = mkdtempSync(join(cacheDir, 'api-report-fixture-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const pkgDir = join(root, 'packages', 'demo');
  mkdirSync(join(pkgDir, 'dist'), { recursive: true });
  writeFileSync(
    join(pkgDir, 'package.json'),
    JSON.stringify({ name: '@demo/demo', version: '1.0.0', exports: { '.': { types: './dist/index.d.ts' } } }),
  );
  const writeDeclarations = (text: string) => writeFileSync(join(pkgDir, 'dist', 'index.d.ts'), text);
  const report = join(pkgDir, 'api', 'demo.api.md');

  it('writes a report on update, passes when nothing changed, and flags a new type-only export', () => {
    writeDeclarations('export declare function start(): void;\n');
    expect(runApiReports({ root, update: true }).map((r) => r.changed)).toEqual([true]);
    expect(readFileSync(report, 'utf8')).toContain('export function start(): void;');

    expect(runApiReports({ root }).map((r) => r.changed)).toEqual([false]);

    writeDeclarations('export declare function start(): void;\nexport interface Options { periodMs: number }\n');
    const [result] = runApiReports({ root });
    expect(result!.changed).toBe(true);
    // A check never rewrites the committed report.
    expect(readFileSync(report, 'utf8')).not.toContain('Options');
  }, 60_000);
});

describe('forgotten exports across entry points', () => {
  // Not under node_modules, where TypeScript would treat the fixture's own modules as an external library; in a
  // git-ignored `dist/` so that an interrupted run leaves nothing to commit.
  const fixtures = join(REPO_ROOT, 'tools', 'api-report', 'dist');
  mkdirSync(fixtures, { recursive: true });
  const root = mkdtempSync(join(fixtures, 'topics-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const pkgDir = join(root, 'packages', 'demo');
  mkdirSync(join(pkgDir, 'dist'), { recursive: true });
  const entry = (file: string) => ({ types: `./dist/${file}.d.ts` });
  writeFileSync(
    join(pkgDir, 'package.json'),
    JSON.stringify({
      name: '@demo/demo',
      version: '1.0.0',
      type: 'module',
      exports: { '.': entry('index'), './topic': entry('topic'), './internal': entry('internal') },
    }),
  );
  const files = {
    'clock.d.ts': '/** A clock. */\nexport interface Clock {\n  /** Milliseconds. */\n  now(): number;\n}\n',
    'hidden.d.ts': '/** Nobody exports it. */\nexport interface Hidden { id: string }\n',
    'index.d.ts': "export type { Clock } from './clock.js';\n",
    'topic.d.ts': [
      "import type { Clock } from './clock.js';",
      "import type { Hidden } from './hidden.js';",
      '/** Uses a type the root exports and one nobody exports. */',
      'export declare function start(clock: Clock, hidden: Hidden): void;',
      '',
    ].join('\n'),
    'internal.d.ts':
      "import type { Hidden } from './hidden.js';\n/** Internal. */\nexport declare function peek(h: Hidden): void;\n",
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(pkgDir, 'dist', name), text);

  it('a public subpath may use a type a sibling public entry point exports, not one that no public entry point does', () => {
    const results = runApiReports({ root, update: true });
    const problems = Object.fromEntries(results.map((r) => [r.entryPoint.specifier, r.problems]));
    expect(problems).toEqual({
      '@demo/demo': [],
      '@demo/demo/topic': ['forgotten export: Hidden (export it, or keep it out of public signatures)'],
      '@demo/demo/internal': [],
    });
    // The warning is a problem to fix, not a line of the committed report.
    expect(readFileSync(join(pkgDir, 'api', 'demo-topic.api.md'), 'utf8')).not.toContain('ae-forgotten-export');
  }, 60_000);
});

describe('reportProblems', () => {
  const report = [
    '// @public',
    'export class Queue {',
    '    // (undocumented)',
    '    readonly depth: number;',
    '    // Warning: (ae-forgotten-export) The symbol "Verb" needs to be exported by the entry point index.d.ts',
    '    //',
    '    // (undocumented)',
    '    protected call(method: Verb): void;',
    '    static readonly [marker] = true;',
    '}',
    '',
    '// @public (undocumented)',
    'export function start(): void;',
  ].join('\n');

  it('names each forgotten export and each undocumented name, with its declaration for a member', () => {
    expect(reportProblems(report)).toEqual([
      'undocumented: Queue.depth',
      'forgotten export: Verb (export it, or keep it out of public signatures)',
      'undocumented: Queue.call',
      'undocumented: start',
    ]);
  });

  it('still reports forgotten exports where undocumented names are allowed', () => {
    expect(reportProblems(report, true)).toEqual([
      'forgotten export: Verb (export it, or keep it out of public signatures)',
    ]);
  });
});

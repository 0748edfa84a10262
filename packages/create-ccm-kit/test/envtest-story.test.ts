/**
 * One envtest story everywhere a vendor reads it, and the true one (packages/cli/src/commands/envtest.ts): the
 * binaries you have, else a download as setup-envtest does, and a build from Go modules only when that fails.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENVTEST_USAGE } from '../../cli/src/commands/envtest.js';
import { projectFiles } from '../src/scaffold.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
/** The paragraph of `text` that mentions `ccm-kit envtest` first. */
const paragraph = (text: string) => text.split(/\n\s*\n/).find((p) => /ccm-kit envtest\b/.test(p)) ?? '';
const cliHelp = spawnSync(process.execPath, [join(repoRoot, 'packages/cli/dist/main.js'), '--help'], {
  encoding: 'utf8',
}).stdout;

describe('the envtest story', () => {
  it.each([
    ['ccm-kit envtest --help', ENVTEST_USAGE],
    ['ccm-kit --help', cliHelp.split('\n').find((l) => l.trim().startsWith('envtest')) ?? ''],
    [
      "the scaffold's README",
      paragraph(projectFiles({ dir: '/x', provider: 'acme', facets: ['routes'] })['README.md']!),
    ],
    ['docs/getting-started.md', read('docs/getting-started.md').split('## 5.')[1]!.split('\n## ')[0]!],
    ['packages/testing/README.md', paragraph(read('packages/testing/README.md'))],
    [
      'packages/cli/README.md',
      read('packages/cli/README.md')
        .split('\n')
        .find((l) => l.includes('`ccm-kit envtest`'))!,
    ],
  ])('%s: downloads as setup-envtest does, builds from Go modules only as the fallback', (_where, text) => {
    expect(text).toMatch(/download/i);
    expect(text).toContain('setup-envtest');
    expect(text).toContain('Go modules');
    expect(text.search(/download/i)).toBeLessThan(text.indexOf('Go modules'));
  });
});

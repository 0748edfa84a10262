/**
 * docs/concepts.md "Follow one object" walks a Node and a Service through the repository's files: every
 * repository path it names exists, so the walk cannot outlive a rename.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The text of the section from its heading to the next `## ` heading. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const next = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, next < 0 ? undefined : next);
}

describe('docs/concepts.md "Follow one object"', () => {
  const walk = section(readFileSync(join(repoRoot, 'docs/concepts.md'), 'utf8'), 'Follow one object');
  const paths = [...walk.matchAll(/`((?:packages|examples|tools)\/[^`\s]+)`/g)].map((m) => m[1]!);

  it('names the files of both walks', () => {
    expect(walk).toContain('### A Node');
    expect(walk).toContain('### A Service');
    expect(paths.length).toBeGreaterThan(10);
  });

  it('names only files that exist', () => {
    expect(paths.filter((p) => !existsSync(join(repoRoot, p)))).toEqual([]);
  });
});

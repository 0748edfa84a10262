/**
 * What the npm registry shows for every published package: the licence text, the repository links and a
 * README whose links work there (relative links into the monorepo break on the registry page).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packagesDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const REPOSITORY = 'https://github.com/ccm-kit/ccm-kit';
const published = readdirSync(packagesDir).filter((d) => existsSync(join(packagesDir, d, 'package.json')));

describe.each(published)('packages/%s', (dir) => {
  const pkgDir = join(packagesDir, dir);
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));

  it('ships the Apache-2.0 licence text it declares', () => {
    expect(pkg.license).toBe('Apache-2.0');
    const text = readFileSync(join(pkgDir, 'LICENSE'), 'utf8');
    expect(text).toContain('Apache License');
    expect(text).toContain('Version 2.0, January 2004');
    expect(pkg.files).toContain('LICENSE');
  });

  it('names its repository, homepage, issue tracker and keywords', () => {
    expect(pkg.repository).toEqual({ type: 'git', url: `git+${REPOSITORY}.git`, directory: `packages/${dir}` });
    expect(pkg.homepage).toBe(`${REPOSITORY}/tree/main/packages/${dir}#readme`);
    expect(pkg.bugs).toEqual({ url: `${REPOSITORY}/issues` });
    expect(pkg.keywords).toEqual(expect.arrayContaining(['kubernetes', 'cloud-controller-manager']));
  });

  it('has a README without relative links (they break on the registry)', () => {
    // Code (fenced blocks and inline spans) may contain anything; only the prose's links matter.
    const readme = readFileSync(join(pkgDir, 'README.md'), 'utf8')
      .replace(/```[\s\S]*?```/g, '')
      .replace(/`[^`\n]*`/g, '');
    const relative = [...readme.matchAll(/\]\((?!https?:|#|mailto:)([^)]+)\)/g)].map((m) => m[1]);
    expect(relative).toEqual([]);
  });
});

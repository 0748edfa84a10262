/** `ccm-kit` on a Node.js older than its engines: one line naming the version needed, exit 1, nothing loaded. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../src/node-version.js';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const engines = (JSON.parse(readFileSync(resolve(pkgDir, 'package.json'), 'utf8')) as { engines: { node: string } })
  .engines.node;

/** Runs dist/main.js with `process.versions.node` reporting `version` (set before the CLI's first line runs). */
function cliOn(version: string, args: string[]) {
  const fake = `data:text/javascript,Object.defineProperty(process.versions,"node",{value:${JSON.stringify(version)}})`;
  const r = spawnSync(process.execPath, ['--import', fake, resolve(pkgDir, 'dist/main.js'), ...args], {
    encoding: 'utf8',
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('the Node.js check of ccm-kit', () => {
  it.each([
    ['20.20.2', false],
    ['22.18.9', false],
    ['22.19.0', true],
    ['22.20.1', true],
    ['24.21.0', true],
    ['23.0.0', true],
  ])('%s satisfies >=22.19: %s', (version, ok) => {
    expect(nodeVersionProblem(version, '>=22.19') === undefined).toBe(ok);
  });

  it('rejects an engines range it cannot read', () => {
    expect(() => nodeVersionProblem('24.0.0', '^22')).toThrow('engines.node "^22": expected ">=MAJOR.MINOR"');
  });

  it('on Node 20: one line on stderr naming the version needed and the one running, exit 1', () => {
    const r = cliOn('20.20.2', ['dev', '--help']);
    expect(r.out).toBe('');
    expect(r.err.split('\n')).toHaveLength(2); // one line and its newline
    expect(r.err).toMatch(new RegExp(`^ccm-kit: needs Node\\.js ${engines}, this is 20\\.20\\.2 \\(`));
    expect(r.err).toContain(`"node" devDependency`);
    expect(r.status).toBe(1);
  });

  it('on a supported Node: runs the command', () => {
    const r = cliOn('24.21.0', ['dev', '--help']);
    expect(r.err).toBe('');
    expect(r.out).toContain('ccm-kit dev [options]');
    expect(r.status).toBe(0);
  });
});

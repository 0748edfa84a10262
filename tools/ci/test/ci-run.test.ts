/**
 * `.ci/run` in a copy of its surroundings, with a stand-in `npm` on PATH that records its arguments and
 * writes the vitest reports: the script runs the README's test command, lint and the type-check, fails
 * (non-zero) when either of those fails, and still ends with the plain `N passed, N failed` line.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const FAKE_NPM = `#!/usr/bin/env bash
echo "$*" >> "$CI_TEST_LOG"
report() { echo '{"numPassedTests":'"$2"',"numFailedTests":0,"numPendingTests":0,"success":true}' > "$1"; }
case "$*" in
  test) report .vitest-report.json 5 ;;
  "run test:skew"*) report .vitest-skew-report.json 2 ;;
  "run lint") [ -z "$CI_TEST_FAIL_LINT" ] || { echo "lint: 1 problem"; exit 1; } ;;
  "run typecheck") [ -z "$CI_TEST_FAIL_TYPECHECK" ] || { echo "error TS2322"; exit 2; } ;;
esac
exit 0
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ccm-kit-ci-run-'));
  mkdirSync(join(dir, '.ci'));
  copyFileSync(join(repoRoot, '.ci/run'), join(dir, '.ci/run'));
  for (const tool of ['helm', 'envtest']) {
    mkdirSync(join(dir, 'tools', tool), { recursive: true });
    writeFileSync(join(dir, 'tools', tool, 'build.sh'), 'exit 0\n');
  }
  for (const pkg of ['cloud-provider', 'runtime', 'controllers', 'app', 'testing', 'cli', 'create-ccm-kit'])
    mkdirSync(join(dir, 'packages', pkg), { recursive: true });
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin/npm'), FAKE_NPM);
  chmodSync(join(dir, 'bin/npm'), 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function ciRun(env: Record<string, string> = {}) {
  const r = spawnSync('bash', [join(dir, '.ci/run')], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, CI_TEST_LOG: join(dir, 'npm.log'), ...env },
  });
  const lines = r.stdout.trimEnd().split('\n');
  return { status: r.status, out: r.stdout, last: lines.at(-1), npm: readFileSync(join(dir, 'npm.log'), 'utf8') };
}

describe('.ci/run', () => {
  it('runs npm test, npm run lint and npm run typecheck, and exits 0 when all pass', () => {
    const r = ciRun();
    expect(r.npm.split('\n')).toEqual(expect.arrayContaining(['test', 'run lint', 'run typecheck']));
    expect(r.last).toBe('7 passed, 0 failed');
    expect(r.status, r.out).toBe(0);
  });

  it.each([
    ['lint', { CI_TEST_FAIL_LINT: '1' }],
    ['typecheck', { CI_TEST_FAIL_TYPECHECK: '1' }],
  ])('fails when npm run %s fails, still ending with the counts', (name, env) => {
    const r = ciRun(env);
    expect(r.out).toContain(`npm run ${name} failed`);
    expect(r.last).toBe('7 passed, 0 failed');
    expect(r.status).toBe(1);
  });
});

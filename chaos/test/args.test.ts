import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseChaosArgs } from '../src/args.ts';

/** `node chaos/run.ts <args>`, as `npm run chaos -- <args>` runs it after type-checking. */
function runChaosCommand(...args: string[]) {
  const script = fileURLToPath(new URL('../run.ts', import.meta.url));
  return spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', timeout: 60_000 });
}

describe('npm run chaos arguments', () => {
  it('--help and -h ask for the usage (exit 0)', () => {
    expect(parseChaosArgs(['--help'])).toMatchObject({ kind: 'help' });
    expect(parseChaosArgs(['-h'])).toMatchObject({ kind: 'help' });
    expect(parseChaosArgs(['--help']).text).toMatch(/^Usage: npm run chaos -- \[--profile short\|long\] \[--seed N\]/);
  });

  it('an unknown flag is an error naming it (exit 1), with the usage', () => {
    const r = parseChaosArgs(['--sed', '7']);
    expect(r).toMatchObject({ kind: 'error' });
    expect(r.text).toMatch(/^unknown option '--sed'/);
    expect(r.text).toContain('Usage: npm run chaos');
  });

  it('reads the profile and the seed, and refuses bad values', () => {
    expect(parseChaosArgs(['--profile', 'long', '--seed', '42'])).toEqual({
      kind: 'run',
      profile: 'long',
      seed: 42,
      ipam: false,
    });
    expect(parseChaosArgs(['--ipam', '--seed', '7'])).toEqual({ kind: 'run', profile: 'short', seed: 7, ipam: true });
    expect(parseChaosArgs([])).toMatchObject({ kind: 'run', profile: 'short' });
    expect(parseChaosArgs(['--profile', 'medium']).text).toBe('--profile must be short or long, got "medium"');
    expect(parseChaosArgs(['--seed=-1']).text).toBe('--seed must be a non-negative integer, got "-1"');
  });

  it('the command prints the usage for --help and exits 0; an unknown flag exits 1 naming it', () => {
    const help = runChaosCommand('--help');
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: npm run chaos/);
    const bad = runChaosCommand('--sed', '7');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^chaos: unknown option '--sed'/);
  });
});

/**
 * The binary's command line (built dist/main.js): `--help` prints the usage under its own name and exits 0; an
 * unknown flag exits 1 naming it; a missing Cattle configuration exits 1 naming the variables, before any
 * connection to an API server.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { RANCHER_CCM_MAIN } from '../src/demo/rancher-ccm-process.js';

function run(args: string[], env: Record<string, string | undefined> = {}) {
  const r = spawnSync(process.execPath, [RANCHER_CCM_MAIN, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, CATTLE_URL: undefined, CATTLE_ACCESS_KEY: undefined, CATTLE_SECRET_KEY: undefined, ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('rancher-cloud-controller-manager', () => {
  it('--help prints the usage and exits 0', () => {
    const { code, out } = run(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('Usage:\n  rancher-cloud-controller-manager [flags]');
    expect(out).toContain('--cloud-config');
  });

  it('an unknown flag exits 1 naming it', () => {
    const { code, err } = run(['--no-such-flag=1']);
    expect(code).toBe(1);
    expect(err).toContain('unknown flag: --no-such-flag');
    expect(err).toContain("Run 'rancher-cloud-controller-manager --help' for usage.");
  });

  it('without a Cattle endpoint it exits 1 naming what to set', () => {
    const { code, err } = run(['--secure-port=0', '--leader-elect=false', '--kubeconfig=/nonexistent']);
    expect(code).toBe(1);
    expect(err).toMatch(/Cloud provider could not be initialized: .*CATTLE_URL is not set/);
  });
});

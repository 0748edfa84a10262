/**
 * `ccm-kit envtest`: builds kube-apiserver, etcd and kubectl from the Go modules pinned in the package's
 * copy of ccm-kit's tools/envtest (sources only, never binaries), into the cache that
 * @ccm-kit/testing's startControlPlane searches: `${CCM_KIT_ENVTEST_DIR:-${XDG_CACHE_HOME:-~/.cache}/ccm-kit/envtest}/<version>-<os>-<arch>/`.
 * Skips the build when that version is there. Binaries found through KUBEBUILDER_ASSETS or the
 * TEST_ASSET_* variables (controller-runtime envtest's conventions) make the build unnecessary.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { findControlPlaneBinary } from '@ccm-kit/testing';
import { assetPath } from '../assets.js';

export const ENVTEST_USAGE = `ccm-kit envtest [--force]

Builds kube-apiserver, etcd and kubectl from Go modules (Go >= 1.26 on PATH; ~10-25 min once, then
cached) for startControlPlane, ccm-kit dev and your integration tests. Prints the directory; use it as
  export KUBEBUILDER_ASSETS="$(npx ccm-kit envtest)"
  --force   build even when KUBEBUILDER_ASSETS or TEST_ASSET_* already provide the binaries`;

/** Runs the command: progress on stderr, the assets directory on stdout. @returns the exit status. */
export async function envtestCommand(argv: string[], out: (text: string) => void): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { force: { type: 'boolean', default: false } }, strict: true });
  if (!values.force) {
    const [api, etcd] = await Promise.all([findControlPlaneBinary('kube-apiserver'), findControlPlaneBinary('etcd')]);
    if (api && etcd && (api.source === 'TEST_ASSET' || api.source === 'KUBEBUILDER_ASSETS')) {
      process.stderr.write(`ccm-kit envtest: using ${api.path} and ${etcd.path} (${api.source}); --force builds anyway\n`);
      out(join(api.path, '..'));
      return 0;
    }
  }
  // build.sh writes go.sum updates next to go.mod: build from a writable copy of the shipped module.
  const work = await mkdtemp(join(tmpdir(), 'ccm-kit-envtest-'));
  try {
    await cp(assetPath('envtest'), work, { recursive: true });
    const stdout: string[] = [];
    const status = await new Promise<number>((resolveExit, reject) => {
      const child = spawn('bash', [join(work, 'build.sh')], { stdio: ['ignore', 'pipe', 'inherit'] });
      child.stdout.on('data', (d: Buffer) => stdout.push(d.toString()));
      child.once('error', reject);
      child.once('exit', (code) => resolveExit(code ?? 1));
    });
    const dir = stdout.join('').trim().split('\n').pop();
    if (status === 0 && dir) out(dir);
    return status;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

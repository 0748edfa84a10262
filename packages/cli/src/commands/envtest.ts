/**
 * `ccm-kit envtest`: makes kube-apiserver, etcd and kubectl available for @ccm-kit/testing's startControlPlane,
 * as controller-runtime's setup-envtest does, and prints their directory (for `KUBEBUILDER_ASSETS`):
 * 1. binaries named by `TEST_ASSET_*` or `KUBEBUILDER_ASSETS` (controller-runtime envtest's conventions), or
 *    already in the setup-envtest store or the tools/envtest cache, are used as they are;
 * 2. otherwise the platform's archive is downloaded from the envtest releases index (setup-envtest's, or
 *    `--index-url` / `$CCM_KIT_ENVTEST_INDEX_URL`), its published SHA-512 checked, and unpacked into the
 *    setup-envtest store (`${XDG_DATA_HOME:-~/.local/share}/kubebuilder-envtest/k8s/<version>-<os>-<arch>/`);
 * 3. if that fails (no network, no archive for the platform), they are built from the Go modules pinned in the
 *    package's copy of ccm-kit's tools/envtest (sources only, never binaries; needs Go >= 1.26) into
 *    `${CCM_KIT_ENVTEST_DIR:-${XDG_CACHE_HOME:-~/.cache}/ccm-kit/envtest}/<version>-<os>-<arch>/`.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { downloadEnvtestBinaries, findControlPlaneBinary } from '@ccm-kit/testing';
import { assetPath } from '../assets.js';

export const ENVTEST_USAGE = `ccm-kit envtest [--kubernetes-version <v>] [--index-url <url>] [--build] [--force]

Downloads kube-apiserver, etcd and kubectl from the envtest releases index, as controller-runtime's
setup-envtest does (SHA-512 checked; stored where setup-envtest stores them), or builds them from Go
modules when that fails (Go >= 1.26 on PATH; ~10-25 min once). Prints the directory; use it as
  export KUBEBUILDER_ASSETS="$(npx ccm-kit envtest)"
  --kubernetes-version <v>  a minor (1.36) or release (1.36.0); default $CCM_KIT_K8S_VERSION, else the newest
  --index-url <url>         the releases index (default $CCM_KIT_ENVTEST_INDEX_URL, else setup-envtest's)
  --build                   build from Go modules, without downloading
  --force                   download or build even when binaries are found already`;

/** Runs the command: progress on stderr, the assets directory on stdout. @returns the exit status. */
export async function envtestCommand(argv: string[], out: (text: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      force: { type: 'boolean', default: false },
      build: { type: 'boolean', default: false },
      'kubernetes-version': { type: 'string' },
      'index-url': { type: 'string' },
    },
    strict: true,
  });
  const kubernetesVersion = values['kubernetes-version'];
  const wanted = kubernetesVersion ? { kubernetesVersion } : {};
  const log = (line: string) => process.stderr.write(`ccm-kit envtest: ${line}\n`);
  if (!values.force) {
    const [api, etcd] = await Promise.all([
      findControlPlaneBinary('kube-apiserver', wanted),
      findControlPlaneBinary('etcd', wanted),
    ]);
    if (api && etcd && join(api.path, '..') === join(etcd.path, '..')) {
      log(`using ${api.path} and ${etcd.path} (${api.source}); --force gets them anew`);
      out(join(api.path, '..'));
      return 0;
    }
  }
  if (!values.build) {
    try {
      out(
        await downloadEnvtestBinaries({
          ...wanted,
          ...(values['index-url'] ? { indexUrl: values['index-url'] } : {}),
          onProgress: log,
        }),
      );
      return 0;
    } catch (err) {
      log(`${(err as Error).message}; building them from Go modules instead`);
    }
  }
  return build(kubernetesVersion, out);
}

/** tools/envtest/build.sh [<version>] from a writable copy of the shipped module (it updates go.sum). */
async function build(kubernetesVersion: string | undefined, out: (text: string) => void): Promise<number> {
  const work = await mkdtemp(join(tmpdir(), 'ccm-kit-envtest-'));
  try {
    await cp(assetPath('envtest'), work, { recursive: true });
    const stdout: string[] = [];
    const args = [join(work, 'build.sh'), ...(kubernetesVersion ? [kubernetesVersion] : [])];
    const status = await new Promise<number>((resolveExit, reject) => {
      const child = spawn('bash', args, { stdio: ['ignore', 'pipe', 'inherit'] });
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

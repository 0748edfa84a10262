/** Runs the kubectl that tools/envtest built (TEST_ASSET_KUBECTL, exported by the integration globalSetup). */
import { spawnSync } from 'node:child_process';

export interface KubectlResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `kubectl --kubeconfig <path> <args…>`, with `input` on stdin. */
export function kubectl(kubeconfigPath: string, args: string[], input?: string): KubectlResult {
  const bin = process.env.TEST_ASSET_KUBECTL;
  if (!bin)
    throw new Error(
      'TEST_ASSET_KUBECTL is not set: run this file in the integration project (its globalSetup finds kubectl)',
    );
  const r = spawnSync(bin, ['--kubeconfig', kubeconfigPath, ...args], { input, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** `kubectl apply --dry-run=server -f -` of `yamlText`: the API server validates and admits, nothing is stored. */
export function applyServerDryRun(kubeconfigPath: string, yamlText: string): KubectlResult {
  return kubectl(kubeconfigPath, ['apply', '--dry-run=server', '-f', '-'], yamlText);
}

/**
 * vitest `globalSetup` of the version-skew suite (vitest.skew.config.ts): finds or builds (tools/envtest/build.sh
 * <minor>, needs Go) kube-apiserver and etcd of every version the suite runs, before any test starts.
 */
import { ensureControlPlaneBinaries } from '@ccm-kit/testing';
import { skewVersions } from './skew-versions.js';

export default async function setup(): Promise<void> {
  for (const kubernetesVersion of skewVersions()) {
    const started = Date.now();
    const b = await ensureControlPlaneBinaries({
      build: true,
      kubernetesVersion,
      onProgress: (line) => process.stderr.write(`[ccm-kit skew ${kubernetesVersion}] ${line}\n`),
    });
    process.stderr.write(
      `[ccm-kit skew] Kubernetes ${kubernetesVersion}: ${b.kubeApiServer} (${Date.now() - started} ms)\n`,
    );
  }
}

/**
 * vitest `globalSetup` of the integration project (see the repository's vitest.config.ts).
 *
 * Makes sure kube-apiserver and etcd exist before any test worker starts: finds them in envtest's
 * lookup order, else downloads them from the envtest releases index as setup-envtest does (unless
 * `CCM_KIT_ENVTEST_DOWNLOAD=false`; `CCM_KIT_ENVTEST_INDEX_URL` names another index), else builds them
 * with tools/envtest (needs Go; progress is printed), then exports their
 * paths as `TEST_ASSET_KUBE_APISERVER`, `TEST_ASSET_ETCD` (and `TEST_ASSET_KUBECTL`) so that every
 * worker, which inherits this environment, uses the same binaries. When that is impossible it throws
 * with instructions: integration tests never skip silently.
 */
import { ensureControlPlaneBinaries } from './control-plane/ensure-binaries.js';

/** Finds or builds the binaries and exports their paths to the test workers. */
export default async function setup(): Promise<void> {
  const started = Date.now();
  let announced = false;
  const binaries = await ensureControlPlaneBinaries({
    download: process.env.CCM_KIT_ENVTEST_DOWNLOAD !== 'false',
    build: true,
    onProgress: (line) => {
      if (!announced) {
        announced = true;
        process.stderr.write(
          '[ccm-kit] kube-apiserver/etcd not found: building them with tools/envtest (once; cached afterwards)\n',
        );
      }
      process.stderr.write(`[ccm-kit] ${line}\n`);
    },
  });
  if (announced) process.stderr.write(`[ccm-kit] control-plane binaries ready in ${Date.now() - started} ms\n`);
  process.env.TEST_ASSET_KUBE_APISERVER = binaries.kubeApiServer;
  process.env.TEST_ASSET_ETCD = binaries.etcd;
  if (binaries.kubectl) process.env.TEST_ASSET_KUBECTL = binaries.kubectl;
}

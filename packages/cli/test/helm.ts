/**
 * The helm binary for the chart test: `TEST_ASSET_HELM`, else the one tools/helm/build.sh builds from the
 * Go module proxy into ~/.cache/ccm-kit/helm (built on first use, like the integration project builds
 * kube-apiserver and etcd with tools/envtest). Never skips: when helm can be neither found nor built, the
 * test fails with the way to provide it.
 */
import { accessSync, constants } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// build.sh scripts share one protocol (progress on stderr, the result on the last stdout line, a lock
// against concurrent builds): run tools/helm's with the runner of tools/envtest's.
import { runEnvtestBuild } from '../../testing/src/control-plane/envtest-build.js';

const toolsHelm = resolve(dirname(fileURLToPath(import.meta.url)), '../../../tools/helm');

/** How to provide helm, for the error message. */
const HOW = [
  'Provide it in one of these ways:',
  '  1. npm run helm:build   (= bash tools/helm/build.sh: Go >= 1.26 on PATH, Go module proxy reachable;',
  '     a few minutes once, then cached in ~/.cache/ccm-kit/helm)',
  '  2. export TEST_ASSET_HELM=/path/to/helm   (Helm 3, the version pinned in tools/helm/build.sh)',
].join('\n');

/**
 * The path of a helm executable.
 * @throws Error naming the build command when `TEST_ASSET_HELM` is not executable or the build fails.
 */
export async function ensureHelm(): Promise<string> {
  const given = process.env.TEST_ASSET_HELM;
  if (given) {
    try {
      accessSync(given, constants.X_OK);
    } catch (err) {
      throw new Error(`TEST_ASSET_HELM=${given} is not an executable file.\n${HOW}`, { cause: err });
    }
    return given;
  }
  try {
    return await runEnvtestBuild({
      toolsDir: toolsHelm,
      onProgress: (line) => process.stderr.write(`[helm build] ${line}\n`),
    });
  } catch (err) {
    throw new Error(
      `helm is needed to render the chart and ${join(toolsHelm, 'build.sh')} could not build it:\n${(err as Error).message}\n${HOW}`,
      { cause: err },
    );
  }
}

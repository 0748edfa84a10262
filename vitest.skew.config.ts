import { defineConfig } from 'vitest/config';

// This repository's tests never reach the internet: missing control-plane binaries are built from Go modules
// (tools/envtest), not downloaded from the envtest releases index (docs/testing.md).
process.env.CCM_KIT_ENVTEST_DOWNLOAD ??= 'false';

// The version-skew suite (`npm run test:skew`, docs/compatibility.md): the manager against each Kubernetes
// minor built by tools/envtest, one control plane at a time. Not part of the default projects.
const resolve = { conditions: ['source'] };
const ssr = { resolve: { conditions: ['source'], externalConditions: ['source'] } };

export default defineConfig({
  resolve,
  ssr,
  test: {
    name: 'skew',
    include: ['packages/*/test/**/*.skew.test.ts'],
    exclude: ['**/node_modules/**'],
    globalSetup: ['packages/app/test/skew-global-setup.ts'],
    // One control plane at a time: the versions run one after the other.
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});

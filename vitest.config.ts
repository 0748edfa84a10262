import { defineConfig } from 'vitest/config';

// This repository's tests never reach the internet: missing control-plane binaries are built from Go modules
// (tools/envtest), not downloaded from the envtest releases index (docs/testing.md).
process.env.CCM_KIT_ENVTEST_DOWNLOAD ??= 'false';

// Two projects: fast unit tests (no network) and integration tests that run
// against a real kube-apiserver + etcd started by @ccm-kit/testing.
// The custom "source" export condition lets tests import workspace packages
// from their TypeScript sources; processes started by tests use dist/.
const resolve = { conditions: ['source'] };
// Vite resolves Node-side (SSR) imports with its own conditions list.
const ssr = { resolve: { conditions: ['source'], externalConditions: ['source'] } };

export default defineConfig({
  resolve,
  ssr,
  test: {
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
    projects: [
      {
        resolve,
        ssr,
        test: {
          name: 'unit',
          include: [
            'packages/*/test/**/*.test.ts',
            'examples/*/test/**/*.test.ts',
            'tools/*/test/**/*.test.ts',
            'chaos/test/**/*.test.ts',
            'bench/test/**/*.test.ts',
          ],
          exclude: ['**/*.int.test.ts', '**/*.skew.test.ts', '**/node_modules/**'],
        },
      },
      {
        resolve,
        ssr,
        test: {
          name: 'integration',
          include: [
            'packages/*/test/**/*.int.test.ts',
            'examples/*/test/**/*.int.test.ts',
            // The short chaos profile (chaos/README.md); the long one runs with `npm run chaos -- --profile long`.
            'chaos/test/**/*.int.test.ts',
          ],
          exclude: ['**/node_modules/**'],
          globalSetup: ['packages/testing/src/vitest-global-setup.ts'],
          // Each file starts its own control plane; 2 cores take two at a time.
          maxWorkers: 2,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';
import { resolve, ssr } from './vitest.shared.js';

// Two projects: fast unit tests (no network) and integration tests that run
// against a real kube-apiserver + etcd started by @ccm-kit/testing.

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

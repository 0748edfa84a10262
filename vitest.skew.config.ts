import { defineConfig } from 'vitest/config';
import { resolve, ssr } from './vitest.shared.js';

// The version-skew suite (`npm run test:skew`, docs/compatibility.md): the manager against each Kubernetes
// minor built by tools/envtest, one control plane at a time. Not part of the default projects.
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

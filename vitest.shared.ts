// What every vitest configuration of this repository shares.

// This repository's tests never reach the internet: missing control-plane binaries are built from Go modules
// (tools/envtest), not downloaded from the envtest releases index (docs/testing.md).
process.env.CCM_KIT_ENVTEST_DOWNLOAD ??= 'false';

// The custom "source" export condition lets tests import workspace packages from their TypeScript sources;
// processes started by tests use dist/.
export const resolve = { conditions: ['source'] };
// Vite resolves Node-side (SSR) imports with its own conditions list.
export const ssr = { resolve: { conditions: ['source'], externalConditions: ['source'] } };

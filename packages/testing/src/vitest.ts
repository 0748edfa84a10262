/**
 * `@ccm-kit/testing/vitest`: the helpers that register vitest suites and hooks. Kept apart from the main
 * entry point so that code outside a test runner (the demo, benchmarks) can use `startControlPlane` and
 * `FakeCloud` without loading vitest.
 */
export { describeProviderConformance } from './conformance/describe.js';
export { useControlPlane } from './control-plane/use-control-plane.js';

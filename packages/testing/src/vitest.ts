/**
 * `@ccm-kit/testing/vitest`: the helpers that register vitest suites and hooks or use `vi`, and the
 * controller fixture. Kept apart from the main entry point so that code outside a test runner (the demo,
 * benchmarks) can use `startControlPlane` and `FakeCloud` without loading vitest or `@ccm-kit/controllers`.
 */
export { type UseTestClusterOptions, useTestCluster } from './cluster/use-test-cluster.js';
export { describeProviderConformance } from './conformance/describe.js';
export { useControlPlane } from './control-plane/use-control-plane.js';
export {
  type ControllerUnderTest,
  type ControllerUnderTestOptions,
  startControllerUnderTest,
} from './controller-under-test/controller-under-test.js';
export { useControllerUnderTest } from './controller-under-test/use-controller-under-test.js';
export { useLogCapture } from './logging/use-log-capture.js';
export {
  DEFAULT_EVENTUALLY_INTERVAL_MS,
  DEFAULT_EVENTUALLY_TIMEOUT_MS,
  type EventuallyOptions,
  eventually,
  eventuallyValue,
  type Present,
} from './wait/eventually.js';

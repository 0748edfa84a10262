/**
 * vitest hooks: one {@link TestCluster} per test file (or `describe`) on a control plane, informers started,
 * the Nodes a test registered deleted after each test.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ControlPlane, ControlPlaneOptions } from '../control-plane/control-plane.js';
import { useControlPlane } from '../control-plane/use-control-plane.js';
import { TestCluster, type TestClusterOptions } from './test-cluster.js';

/** Options of {@link useTestCluster}. */
export interface UseTestClusterOptions extends TestClusterOptions {
  /** The file's control plane getter (from `useControlPlane`); default: a new one for this suite. */
  readonly controlPlane?: () => ControlPlane;
  /** Options of the control plane started when `controlPlane` is absent. */
  readonly controlPlaneOptions?: ControlPlaneOptions;
  /** Called in `beforeAll` before the informers start, e.g. to create the informers the tests need. */
  readonly setup?: (cluster: TestCluster) => void | Promise<void>;
}

/**
 * Registers `beforeAll` (TestCluster, `setup`, informers started and synced), `afterEach`
 * (`cluster.cleanup()`) and `afterAll` (`cluster.stop()`) in the current suite.
 * @returns a getter for the cluster.
 * @throws Error from the getter when called before `beforeAll` has run.
 */
export function useTestCluster(options: UseTestClusterOptions = {}): () => TestCluster {
  const controlPlane = options.controlPlane ?? useControlPlane(options.controlPlaneOptions);
  let cluster: TestCluster | undefined;
  beforeAll(async () => {
    cluster = new TestCluster(controlPlane(), options);
    await options.setup?.(cluster);
    await cluster.startInformers();
  });
  afterEach(async () => {
    await cluster?.cleanup();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  return () => {
    if (!cluster) throw new Error('useTestCluster: not started yet; use the getter inside tests or hooks');
    return cluster;
  };
}

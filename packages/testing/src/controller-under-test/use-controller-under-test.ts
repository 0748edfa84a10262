/**
 * vitest hooks: one controller (and, unless given, one control plane) per test file or `describe`, with the
 * Nodes a test registered deleted after each test.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { DEFAULT_START_TIMEOUT_MS } from '../control-plane/control-plane.js';
import {
  type ControllerUnderTest,
  type ControllerUnderTestOptions,
  startControllerUnderTest,
} from './controller-under-test.js';

/**
 * Registers `beforeAll` (start the controller; `options` is called there, so it may read other fixtures),
 * `afterEach` (`cluster.cleanup()`) and `afterAll` (stop) in the current suite.
 * @returns a getter for the running controller.
 * @throws Error from the getter when called before `beforeAll` has run.
 */
export function useControllerUnderTest(options: () => ControllerUnderTestOptions): () => ControllerUnderTest {
  let cut: ControllerUnderTest | undefined;
  beforeAll(async () => {
    cut = await startControllerUnderTest(options());
  }, DEFAULT_START_TIMEOUT_MS + 60_000);
  afterEach(async () => {
    await cut?.cluster.cleanup();
  });
  afterAll(async () => {
    await cut?.stop();
  }, 60_000);
  return () => {
    if (!cut) throw new Error('useControllerUnderTest: not started yet; use the getter inside tests or hooks');
    return cut;
  };
}

/**
 * vitest helper: one control plane per test file (see docs/testing.md), started in `beforeAll` and stopped
 * in `afterAll`.
 */
import { afterAll, beforeAll } from 'vitest';
import {
  type ControlPlane,
  type ControlPlaneOptions,
  DEFAULT_START_TIMEOUT_MS,
  startControlPlane,
} from './control-plane.js';

/**
 * Registers `beforeAll`/`afterAll` hooks in the current suite that start and stop a control plane.
 * Call it at the top level of a test file (or of a `describe`).
 * @returns a getter for the running control plane.
 * @throws Error from the getter when called before `beforeAll` has run (e.g. at collection time).
 */
export function useControlPlane(options: ControlPlaneOptions = {}): () => ControlPlane {
  let cp: ControlPlane | undefined;
  // The hook timeout must cover the start timeout (plus certificate generation).
  const hookTimeoutMs = (options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS) + 30_000;
  beforeAll(async () => {
    cp = await startControlPlane(options);
  }, hookTimeoutMs);
  afterAll(async () => {
    await cp?.stop();
  }, 60_000);
  return () => {
    if (!cp)
      throw new Error('useControlPlane: the control plane is not started yet; use the getter inside tests or hooks');
    return cp;
  };
}

export type { BinaryLocation, BinaryLookupOptions, BinarySource, ControlPlaneBinaryName } from './binaries.js';
export { findControlPlaneBinary, testAssetEnvName } from './binaries.js';
export {
  type ControlPlane,
  type ControlPlaneOptions,
  ControlPlaneStartError,
  type ControlPlaneUser,
  DEFAULT_START_TIMEOUT_MS,
  DEFAULT_STOP_TIMEOUT_MS,
  type RestartOptions,
  type StopProcessOptions,
  startControlPlane,
} from './control-plane.js';
export {
  type ControlPlaneBinaries,
  ControlPlaneBinariesMissingError,
  type EnsureBinariesOptions,
  ensureControlPlaneBinaries,
} from './ensure-binaries.js';
export type { FlagOverrides } from './flags.js';
export { DEFAULT_ENVTEST_INDEX_URL, downloadEnvtestBinaries, type EnvtestDownloadOptions } from './envtest-download.js';

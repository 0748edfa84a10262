/** The ccm-kit command's building blocks, for scripts and for `create-ccm-kit`. */
export { type AssetName, assetPath } from './assets.js';
export { bundle, type BundleResult, FILL_COMPILE_CACHE } from './commands/build.js';
export { rbacManifest, renderHelmChart, renderManifests, renderRbac, renderWorkload } from './manifests/render.js';
export { CCM_TOLERATIONS, defaultManifestValues, type ManifestValues } from './manifests/values.js';
export { CCM_NAME, SECURE_PORT } from './manifests/workload.js';

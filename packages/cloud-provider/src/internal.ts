/**
 * `@ccm-kit/cloud-provider/internal`: names that sibling ccm-kit packages and this package's tests share but that
 * are NOT public API. Not covered by semver: anything here may change or disappear in any release. Vendors
 * import from `@ccm-kit/cloud-provider` only.
 */
export { type CallOptions, callOptions, type PatchKind, patchOptions } from './helpers/call-options.js';
export { deepCopy } from './helpers/deep-copy.js';
export { errorMessage } from './helpers/error-message.js';
export { formatGoDuration } from './helpers/go-duration.js';
export { nodeLabelsPatch } from './helpers/node-labels.js';
export { nodeTaintsPatch } from './helpers/node-taints.js';
export { UPDATE_NODE_BACKOFF, UPDATE_NODE_SPEC_BACKOFF } from './helpers/retry-on-conflict.js';
export { servicePatch } from './helpers/service-patch.js';
export { createTwoWayMergePatch } from './helpers/strategic-merge-patch.js';
export { errorForDisabledProvider, disabledProviderWarnings } from './registry.js';
export { fnv32, pvcNameHashAndIndexOffset } from './volume/zones.js';

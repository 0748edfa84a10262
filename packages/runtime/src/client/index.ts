/**
 * `@ccm-kit/runtime/client`: the API client factory, raw requests and their response, the raw-JSON clients,
 * kubeconfig loading and the API error helpers (client-go `rest`, `clientcmd`, apimachinery `api/errors`).
 * Public API, covered by semver.
 */
export {
  errorStatus,
  statusCode,
  isNotFound,
  isConflict,
  isAlreadyExists,
  isGone,
  isTooManyRequests,
  type ErrorStatus,
} from './errors.js';
export { createClientFactory, type ClientFactoryOptions, ClientFactory } from './factory.js';
export { loadKubeConfig, type LoadKubeConfigOptions } from './kubeconfig.js';
// One implementation for the whole repository: cloud-provider's Node and Service adapters use it too.
export { patchOptions, callOptions, type PatchKind, type CallOptions } from '@ccm-kit/cloud-provider/internal';
export { type RawRequestOptions } from './transport.js';
export { CoreV1Client, CoordinationV1Client, type ApiMethodParams } from './raw-api.js';
export { LeanKubeConfig, type KubeConfigLike, type AuthRequest } from './lean-kubeconfig.js';
export { type TransportResponse, type ResponseHeaders } from './transport-response.js';

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
  createClientFactory,
  type ClientFactoryOptions,
  ClientFactory,
  loadKubeConfig,
  type LoadKubeConfigOptions,
  patchOptions,
  callOptions,
  type PatchKind,
  type CallOptions,
  type RawRequestOptions,
  CoreV1Client,
  CoordinationV1Client,
  LeanKubeConfig,
  type KubeConfigLike,
  type ApiMethodParams,
  type AuthRequest,
  type TransportResponse,
  type ResponseHeaders,
} from '../client/index.js';

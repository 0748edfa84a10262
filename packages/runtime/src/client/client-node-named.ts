/**
 * The members of `@kubernetes/client-node` that `clientNode()` answers, re-exported by name. Loaded only by
 * `loadClientNode()` (dynamic import): `ccm-kit build` sees these names and bundles them, where the
 * `require` of `clientNode()` is opaque to it and fails in an image without node_modules (decision 0413).
 */
export { AuthenticationV1Api, AuthorizationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';

/**
 * The parts of `@kubernetes/client-node` the runtime uses on its start path, imported from the modules
 * that define them. `import '@kubernetes/client-node'` (and its `KubeConfig`, whose module imports the
 * generated API tree) evaluates about 870 modules: ~85 MB of RSS and ~0.5 s of CPU at start-up. The
 * modules below import nothing but `node:` built-ins, so they cost nothing (client-node's `createConfiguration`
 * is not among them: its module imports undici, see `typed-configuration.ts`); they are the same module
 * instances the package's index re-exports (`V1MicroTime` and `ApiException` are the
 * same classes, so `instanceof` holds). client-node 2.x has no `exports` map, so these deep paths
 * resolve; `runtime/test/lean-kubeconfig.test.ts` ("client-node-parts") fails if an upgrade moves them. See
 * decision 0030.
 *
 * {@link clientNode} loads the whole package, synchronously, for what only some configurations use
 * (a vendor's typed `CoreV1Api`, OIDC/Azure/GCP auth providers); {@link loadClientNode} does it in a way a
 * bundler follows.
 */
import { createRequire } from 'node:module';

export { newClusters, newContexts, newUsers } from '@kubernetes/client-node/dist/config_types.js';
export { ExecAuth } from '@kubernetes/client-node/dist/exec_auth.js';
export { FileAuth } from '@kubernetes/client-node/dist/file_auth.js';
export { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
// What a typed client (`ClientFactory.client(name, CoreV1Api)`) needs besides the vendor's own API class: light
// modules too, so a bundled vendor binary builds typed clients without `loadClientNode()` first.
export { configureAuthMethods } from '@kubernetes/client-node/dist/gen/auth/auth.js';
export { ResponseContext, wrapHttpLibrary } from '@kubernetes/client-node/dist/gen/http/http.js';
export { ServerConfiguration } from '@kubernetes/client-node/dist/gen/servers.js';
export { V1MicroTime } from '@kubernetes/client-node/dist/types.js';

/** What the runtime and app take from the whole package (the names `client-node-named.ts` re-exports). */
export type ClientNodeParts = Pick<
  typeof import('@kubernetes/client-node'),
  'AuthenticationV1Api' | 'AuthorizationV1Api' | 'CoreV1Api' | 'KubeConfig'
>;
let loaded: ClientNodeParts | undefined;

/**
 * The parts of `@kubernetes/client-node` that need its whole package (the `KubeConfig` class, `CoreV1Api`, the
 * review APIs of delegated authentication), loaded on first call: by
 * {@link loadClientNode} if it ran, else by `require` of the package (an ES module, which Node ≥ 22.12 loads
 * synchronously; client-node has no top-level await) from node_modules.
 * @throws Error "Cannot find module" in a `ccm-kit build` bundle (no node_modules) unless
 *   {@link loadClientNode} ran first.
 */
export function clientNode(): ClientNodeParts {
  loaded ??= createRequire(import.meta.url)('@kubernetes/client-node') as ClientNodeParts;
  return loaded;
}

/**
 * Loads the parts {@link clientNode} answers by a dynamic `import()` of modules that name them, so that a
 * `ccm-kit build` bundle carries them (decision 0413). The app calls it before what needs them (secure
 * serving's delegated authentication, `--use-service-account-credentials`). Typed clients
 * (`ClientFactory.client(name, CoreV1Api)`) do not need it: their parts come from the light modules above.
 */
export async function loadClientNode(): Promise<ClientNodeParts> {
  loaded ??= await import('./client-node-named.js');
  return loaded;
}

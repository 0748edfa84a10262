/**
 * The parts of `@kubernetes/client-node` the runtime uses on its start path, imported from the modules
 * that define them. `import '@kubernetes/client-node'` (and its `KubeConfig`, whose module imports the
 * generated API tree) evaluates about 870 modules: ~85 MB of RSS and ~0.5 s of CPU at start-up. The
 * modules below import nothing but `node:` built-ins, so they cost nothing; they are the same module
 * instances the package's index re-exports (`V1MicroTime`, `ApiException` and `Observable` are the
 * same classes, so `instanceof` holds). client-node 2.x has no `exports` map, so these deep paths
 * resolve; `client-node-parts.test.ts` fails if an upgrade moves them. See decision 0030.
 *
 * {@link clientNode} loads the whole package, synchronously, for what only some configurations use
 * (a vendor's typed `CoreV1Api`, OIDC/Azure/GCP auth providers).
 */
import { createRequire } from 'node:module';

export { newClusters, newContexts, newUsers } from '@kubernetes/client-node/dist/config_types.js';
export { ExecAuth } from '@kubernetes/client-node/dist/exec_auth.js';
export { FileAuth } from '@kubernetes/client-node/dist/file_auth.js';
export { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
export { Observable } from '@kubernetes/client-node/dist/gen/rxjsStub.js';
export { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
export { V1MicroTime } from '@kubernetes/client-node/dist/types.js';

type ClientNode = typeof import('@kubernetes/client-node');
let loaded: ClientNode | undefined;

/**
 * The whole `@kubernetes/client-node` package, loaded on first call (`require` of an ES module, which
 * Node ≥ 22.12 does synchronously; client-node has no top-level await).
 */
export function clientNode(): ClientNode {
  loaded ??= createRequire(import.meta.url)('@kubernetes/client-node') as ClientNode;
  return loaded;
}

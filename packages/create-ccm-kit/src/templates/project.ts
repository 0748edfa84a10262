/** The project files of a new provider: package.json, tsconfig, Dockerfile, README, CI, .gitignore. */
import { type ProjectOptions } from '../options.js';
import { CCM_KIT_RANGE, NODE_MAJOR, THIRD_PARTY } from '../versions.js';

/** The name of the project's binary and image: `<provider>-cloud-controller-manager`, as upstream's CCMs are named. */
export const binName = (o: ProjectOptions) => `${o.provider}-cloud-controller-manager`;

export function packageJson(o: ProjectOptions): string {
  const pkg = {
    name: binName(o),
    version: '0.1.0',
    private: true,
    description: `The ${o.provider} Kubernetes cloud-controller-manager, built with ccm-kit`,
    type: 'module',
    engines: { node: '>=22.19' },
    bin: { [binName(o)]: './dist/main.js' },
    // npm runs the `node` package's install script, which puts the pinned Node.js into node_modules/.bin.
    allowScripts: { node: true },
    // Read by the ccm-kit command (dev, manifests).
    ccmKit: { provider: o.provider, entry: 'dist/main.js' },
    scripts: {
      build: 'tsc -p .',
      // The tests type-checked too (vitest runs them without checking types).
      typecheck: 'tsc -p tsconfig.test.json',
      test: 'vitest run',
      dev: 'ccm-kit dev --cloud-config dev/cloud-config.yaml --service',
      conformance: 'ccm-kit conformance',
      bundle: 'ccm-kit build',
      manifests: `ccm-kit manifests --provider ${o.provider}`,
    },
    dependencies: {
      '@ccm-kit/app': CCM_KIT_RANGE,
      '@ccm-kit/cloud-provider': CCM_KIT_RANGE,
      '@kubernetes/client-node': THIRD_PARTY['@kubernetes/client-node'],
      yaml: THIRD_PARTY.yaml,
    },
    devDependencies: {
      '@ccm-kit/cli': CCM_KIT_RANGE,
      '@ccm-kit/testing': CCM_KIT_RANGE,
      '@types/node': THIRD_PARTY['@types/node'],
      // The Node.js every npm script of the project runs on, whatever the machine's own node is (older ones fail
      // inside the dependencies); engines.node is the floor for the published CCM.
      node: THIRD_PARTY.node,
      typescript: THIRD_PARTY.typescript,
      vitest: THIRD_PARTY.vitest,
    },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

export function tsconfigJson(): string {
  return `${JSON.stringify(
    {
      compilerOptions: {
        target: 'es2023',
        lib: ['es2023'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noImplicitOverride: true,
        noFallthroughCasesInSwitch: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: false,
        verbatimModuleSyntax: true,
        skipLibCheck: true,
        sourceMap: true,
        rootDir: 'src',
        outDir: 'dist',
        types: ['node'],
      },
      include: ['src'],
    },
    null,
    2,
  )}\n`;
}

/** `npm run typecheck`: src/ and test/ together, no output (the build's tsconfig compiles only src/). */
export function tsconfigTestJson(): string {
  return `${JSON.stringify(
    { extends: './tsconfig.json', compilerOptions: { noEmit: true, rootDir: '.' }, include: ['src', 'test'] },
    null,
    2,
  )}\n`;
}

/**
 * The Node options of the scaffolded image (`ENV NODE_OPTIONS`): a 2 MiB semi-space (decision 0412). bench:compare
 * runs ccm-kit with the same options.
 */
export const nodeOptions = '--max-semi-space-size=2';

/** Where the scaffolded image keeps Node's compile cache of the bundle (`ENV NODE_COMPILE_CACHE`, decision 0417). */
export const compileCacheDir = '/app/.compile-cache';

export function dockerfile(o: ProjectOptions): string {
  return `# The ${o.provider} cloud-controller-manager image: the production bundle (npx ccm-kit build) on the
# official Node.js image, running as a non-root user (numeric, so Kubernetes' runAsNonRoot can verify it).
FROM node:${NODE_MAJOR}-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npx ccm-kit build

FROM node:${NODE_MAJOR}-slim
WORKDIR /app
COPY --from=build /src/dist/bundle/ /app/
# A smaller V8 young generation: about a sixth less peak memory for no measurable CPU (ccm-kit decision 0412).
# Set NODE_OPTIONS in the pod to change it; add --enable-source-maps there to map stack traces to the sources.
ENV NODE_OPTIONS=${nodeOptions}
# Node's compile cache of the bundle's chunks, filled here so that a start compiles less (ccm-kit decision 0417).
# Node keys it by user id and NODE_OPTIONS: it serves the user below with these options, and is read-only at run time.
ENV NODE_COMPILE_CACHE=${compileCacheDir}
RUN mkdir ${compileCacheDir} && chown 65532:65532 ${compileCacheDir}
USER 65532:65532
RUN node /app/fill-compile-cache.mjs
ENTRYPOINT ["node", "/app/main.mjs"]
`;
}

export function dockerignore(): string {
  return 'node_modules\ndist\nccm-dev.log\n.git\n';
}

export function gitignore(): string {
  return 'node_modules/\ndist/\nccm-dev.log\n.ccm-kit-dev/\n.ccm-kit-conformance-*\n';
}

export function ciWorkflow(o: ProjectOptions): string {
  return `# CI for the ${o.provider} cloud-controller-manager: type-check, unit and conformance tests, bundle, image.
name: ci
on:
  push:
    branches: [main]
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: ${NODE_MAJOR}
          cache: npm
      - run: npm ci
      - run: npm run build
      - run: npm run typecheck
      - run: npm test
      - run: npx ccm-kit conformance
      - run: npx ccm-kit build
      - run: docker build -t ${binName(o)}:ci .
      - run: npx ccm-kit manifests --provider ${o.provider} --image ${binName(o)}:ci > manifests.yaml
`;
}

export function readme(o: ProjectOptions): string {
  return `# ${binName(o)}

The Kubernetes cloud-controller-manager for ${o.provider}, built with [ccm-kit](https://github.com/ccm-kit/ccm-kit#readme).
Facets: ${o.facets.join(', ')}.

| file | what |
| --- | --- |
| \`src/provider.ts\` | the provider: every method a stub with a TODO — implement them against your cloud's API |
| \`src/config.ts\` | the \`--cloud-config\` file, parsed and validated |
| \`src/main.ts\` | the binary: registers the provider and runs ccm-kit's cloud-controller-manager |
| \`test/conformance-options.ts\` | how the conformance suite builds your provider (point it at a fake of your API) |
| \`dev/cloud-config.yaml\` | the cloud-config \`npm run dev\` uses |
| \`Dockerfile\`, \`chart/\` | the image (the production bundle with Node's compile cache filled at build time, non-root) and a Helm chart |

## Develop

\`\`\`sh
npm test                 # unit tests + the provider conformance suite (stubs are reported pending)
npm run typecheck        # src/ and test/ type-checked (vitest runs tests without checking types)
npx ccm-kit conformance  # the conformance suite alone: passed / pending / broke
npm run dev              # your CCM against a local kube-apiserver with 3 kubelet-style Nodes and a
                         # LoadBalancer Service; rebuilds and restarts when src/ changes
\`\`\`

\`npm run dev\` needs kube-apiserver and etcd: \`npx ccm-kit envtest\` uses the ones you have (\`KUBEBUILDER_ASSETS\`,
setup-envtest's store), else downloads them once as controller-runtime's setup-envtest does (SHA-512 checked), and
builds them from Go modules (Go ≥ 1.26, 10–25 minutes once) only when the download fails.
\`ccm-kit dev --kubeconfig <file>\` runs against an existing cluster instead.

\`npm run dev\` registers kubelet-style Nodes named \`dev-node-1\` … \`dev-node-3\` (\`--nodes <n>\`; InternalIPs 10.0.0.11,
10.0.0.12, …; \`--zones a,b\` labels them round robin) and the LoadBalancer Service \`default/dev-lb\`: seed a fake of
your cloud with machines of those names. It runs the CCM with \`--configure-cloud-routes=true
--cluster-cidr=10.244.0.0/16\` and gives \`dev-node-N\` the Pod CIDR \`10.244.N.0/24\`, so a provider with Routes
gets its routes created; its first lines say whether the node-route-controller started. After each rebuild it
prints \`[ccm-kit dev] the CCM is running again\`.

## Ship

\`\`\`sh
npx ccm-kit build                                   # dist/bundle/: main.mjs + chunks/, no node_modules
docker build -t registry.example.com/${o.provider}/cloud-controller-manager:v0.1.0 .
helm install ${o.provider}-ccm ./chart -n kube-system --set image.tag=v0.1.0
# or without Helm, from the same templates:
npx ccm-kit manifests --provider ${o.provider} --image registry.example.com/${o.provider}/cloud-controller-manager:v0.1.0 | kubectl apply -f -
\`\`\`

The chart's values: image, args (CCM flags), env (e.g. the API token from a Secret), resources, tolerations,
nodeSelector, priorityClassName, kind (Deployment with leader election, or DaemonSet on control-plane
Nodes), hostNetwork, monitoring (chart/README.md). It installs into the release namespace (\`-n\`), where the
Secrets it reads must be; \`ccm-kit manifests --namespace\` does the same. Pods pass Pod Security "restricted"
unless hostNetwork is on.
`;
}

/**
 * Making sure kube-apiserver and etcd are available: find them (envtest's lookup order, see
 * binaries.ts) or, when allowed, download them from the envtest releases index as setup-envtest does
 * (envtest-download.ts), else build them with tools/envtest, or fail with instructions.
 */
import {
  type BinaryLocation,
  type BinaryLookupOptions,
  type ControlPlaneBinaryName,
  describeSearchPath,
  findControlPlaneBinary,
  requestedKubernetesVersion,
} from './binaries.js';
import { envtestBuildAvailable, runEnvtestBuild } from './envtest-build.js';
import { downloadEnvtestBinaries } from './envtest-download.js';

/** Absolute paths of the control-plane binaries. */
export interface ControlPlaneBinaries {
  /** Absolute path of `kube-apiserver`. */
  readonly kubeApiServer: string;
  /** Absolute path of `etcd`. */
  readonly etcd: string;
  /** Present when a kubectl was found next to the others; tests do not need it. */
  readonly kubectl?: string;
}

/** Options of {@link ensureControlPlaneBinaries}. */
export interface EnsureBinariesOptions extends BinaryLookupOptions {
  /**
   * Download the missing binaries from the envtest releases index into the setup-envtest store, checking their
   * SHA-512 (`downloadEnvtestBinaries`). `true` uses `$CCM_KIT_ENVTEST_INDEX_URL` or setup-envtest's index; a
   * string is the index URL. Tried before `build`; a failed download falls back to it. Default false.
   */
  download?: boolean | string;
  /** Build the missing binaries with tools/envtest/build.sh (needs Go ≥ 1.26; ~15–25 min cold). Default false. */
  build?: boolean;
  /** Progress lines while building. */
  onProgress?: (line: string) => void;
  /** Directory of tools/envtest (default: this checkout's). */
  toolsDir?: string;
}

/** The error thrown when the binaries are missing: the message says how to provide them. */
export class ControlPlaneBinariesMissingError extends Error {
  /** `ControlPlaneBinariesMissingError`. */
  override readonly name = 'ControlPlaneBinariesMissingError';
  constructor(
    /** The binaries that were not found (`kube-apiserver`, `etcd`). */
    readonly missing: readonly ControlPlaneBinaryName[],
    message: string,
  ) {
    super(message);
  }
}

function instructions(missing: ControlPlaneBinaryName[], options: EnsureBinariesOptions, buildTried: string): string {
  const lines = [
    `The Kubernetes control-plane binaries ${missing.join(' and ')}${requestedKubernetesVersion(options) ? ` of Kubernetes ${requestedKubernetesVersion(options)}` : ''} were not found; integration tests need a real kube-apiserver and etcd.`,
  ];
  for (const name of missing) {
    lines.push(`Looked for ${name} in:`, ...describeSearchPath(name, options).map((s) => `  - ${s}`));
  }
  if (buildTried) lines.push(buildTried);
  lines.push(
    'Provide them in one of these ways:',
    '  1. Download them (as setup-envtest does) or, failing that, build them from source (Go >= 1.26, ~15-25 min once):',
    '       npx ccm-kit envtest          # in your project (the @ccm-kit/cli package); prints KUBEBUILDER_ASSETS',
    '       npm run envtest:build        # in the ccm-kit repository: build only (bash tools/envtest/build.sh)',
    '  2. Use binaries you already have (e.g. from controller-runtime setup-envtest, Kubernetes 1.34+):',
    '       export KUBEBUILDER_ASSETS=/dir/containing/kube-apiserver-and-etcd',
    '       (setup-envtest: export KUBEBUILDER_ASSETS="$(setup-envtest use -p path 1.36.x)")',
    '  3. Point at each binary:',
    '       export TEST_ASSET_KUBE_APISERVER=/path/to/kube-apiserver TEST_ASSET_ETCD=/path/to/etcd',
  );
  return lines.join('\n');
}

async function lookup(options: EnsureBinariesOptions) {
  const [api, etcd, kubectl] = await Promise.all(
    (['kube-apiserver', 'etcd', 'kubectl'] as const).map((n) => findControlPlaneBinary(n, options)),
  );
  return { api, etcd, kubectl };
}

function result(api: BinaryLocation, etcd: BinaryLocation, kubectl?: BinaryLocation): ControlPlaneBinaries {
  return kubectl
    ? { kubeApiServer: api.path, etcd: etcd.path, kubectl: kubectl.path }
    : { kubeApiServer: api.path, etcd: etcd.path };
}

/**
 * Finds kube-apiserver and etcd (and kubectl, optional) in envtest's lookup order; when one is
 * missing and `build` is true, runs tools/envtest/build.sh and looks again.
 * @throws ControlPlaneBinariesMissingError with step-by-step instructions when they cannot be found or built.
 * @throws Error when a `TEST_ASSET_*` variable points at something that is not an executable file.
 */
export async function ensureControlPlaneBinaries(options: EnsureBinariesOptions = {}): Promise<ControlPlaneBinaries> {
  let { api, etcd, kubectl } = await lookup(options);
  if (api && etcd) return result(api, etcd, kubectl);

  const missing = (): ControlPlaneBinaryName[] => [
    ...(api ? [] : (['kube-apiserver'] as const)),
    ...(etcd ? [] : (['etcd'] as const)),
  ];
  let downloadNote = '';
  if (options.download) {
    try {
      await downloadEnvtestBinaries({
        ...(typeof options.download === 'string' ? { indexUrl: options.download } : {}),
        ...pick(options),
      });
      ({ api, etcd, kubectl } = await lookup(options));
      if (api && etcd) return result(api, etcd, kubectl);
      downloadNote = 'The download succeeded, but the lookup does not find the binaries in the setup-envtest store.';
    } catch (err) {
      downloadNote = `Downloading them failed: ${(err as Error).message}`;
      if (options.build) options.onProgress?.(`${downloadNote}; building them instead`);
    }
  }
  let buildNote: string;
  if (!options.build) {
    buildNote = 'Building them automatically was not requested (ensureControlPlaneBinaries({ build: true }) does).';
  } else if (!envtestBuildAvailable(options.toolsDir)) {
    buildNote =
      'They cannot be built here: tools/envtest/build.sh is not part of this installation (it is in the ccm-kit repository).';
  } else {
    let assets: string;
    try {
      const kubernetesVersion = requestedKubernetesVersion(options);
      assets = await runEnvtestBuild({
        toolsDir: options.toolsDir,
        onProgress: options.onProgress,
        env: options.env,
        ...(kubernetesVersion ? { kubernetesVersion } : {}),
      });
    } catch (err) {
      throw new ControlPlaneBinariesMissingError(
        missing(),
        instructions(missing(), options, `Building them with tools/envtest failed:\n${(err as Error).message}`),
      );
    }
    ({ api, etcd, kubectl } = await lookup(options));
    if (!api || !etcd) {
      buildNote = `tools/envtest/build.sh reported ${assets}, but the lookup still does not find the binaries there.`;
      throw new ControlPlaneBinariesMissingError(missing(), instructions(missing(), options, buildNote));
    }
    return result(api, etcd, kubectl);
  }
  throw new ControlPlaneBinariesMissingError(
    missing(),
    instructions(missing(), options, [downloadNote, buildNote].filter(Boolean).join('\n')),
  );
}

/** The lookup inputs a download shares. */
function pick(o: EnsureBinariesOptions) {
  return {
    ...(o.env ? { env: o.env } : {}),
    ...(o.home ? { home: o.home } : {}),
    ...(o.goos ? { goos: o.goos } : {}),
    ...(o.goarch ? { goarch: o.goarch } : {}),
    ...(o.kubernetesVersion ? { kubernetesVersion: o.kubernetesVersion } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  };
}

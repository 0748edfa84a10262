/**
 * Finding kube-apiserver, etcd and kubectl the way controller-runtime's envtest does
 * (`pkg/internal/testing/process/bin_path_finder.go`, `pkg/envtest/binaries.go`), plus the cache
 * that this repository's `tools/envtest/build.sh` fills.
 *
 * Lookup order, per binary:
 * 1. `TEST_ASSET_<NAME>` (`TEST_ASSET_KUBE_APISERVER`, `TEST_ASSET_ETCD`, `TEST_ASSET_KUBECTL`);
 * 2. `$KUBEBUILDER_ASSETS/<name>`;
 * 3. the setup-envtest store, `${XDG_DATA_HOME:-~/.local/share}/kubebuilder-envtest/k8s/<ver>-<os>-<arch>/`,
 *    newest version first;
 * 4. the tools/envtest cache, `${CCM_KIT_ENVTEST_DIR:-${XDG_CACHE_HOME:-~/.cache}/ccm-kit/envtest}/<ver>-<os>-<arch>/`
 *    (only complete builds, which have a `VERSION` file), the version pinned in tools/envtest/go.mod first.
 *
 * With a requested Kubernetes version (`kubernetesVersion`, or `CCM_KIT_K8S_VERSION`: a minor such as `1.33` or
 * a release such as `1.33.13`), only the two stores are searched, and only their directories of that version:
 * `TEST_ASSET_*` and `KUBEBUILDER_ASSETS` name binaries of an unknown version.
 */
import { constants, promises as fs } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The binaries a control plane uses. kubectl is optional. */
export type ControlPlaneBinaryName = 'kube-apiserver' | 'etcd' | 'kubectl';

/** Where a binary was found. */
export type BinarySource = 'TEST_ASSET' | 'KUBEBUILDER_ASSETS' | 'setup-envtest' | 'tools/envtest';

/** A binary found on disk. */
export interface BinaryLocation {
  /** Absolute path of the binary. */
  readonly path: string;
  /** Where it was found (an environment variable, setup-envtest's cache or tools/envtest's build). */
  readonly source: BinarySource;
}

/** Inputs of the lookup; every field defaults to the real environment. For tests. */
export interface BinaryLookupOptions {
  /** Environment to read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Home directory (default `os.homedir()`). */
  home?: string;
  /** Go-style OS name (default from `process.platform`, e.g. `linux`). */
  goos?: string;
  /** Go-style architecture (default from `process.arch`, e.g. `amd64`). */
  goarch?: string;
  /** Kubernetes version pinned by tools/envtest, without `v` (default read from tools/envtest/go.mod when present). */
  pinnedVersion?: string;
  /**
   * The Kubernetes version wanted: a minor (`1.33`) or a release (`1.33.13`), with or without `v`. Default
   * `$CCM_KIT_K8S_VERSION`; unset: any version (see the lookup order above).
   */
  kubernetesVersion?: string;
}

/** The requested version (option, else `$CCM_KIT_K8S_VERSION`) without `v`, or undefined. */
export function requestedKubernetesVersion(options: BinaryLookupOptions = {}): string | undefined {
  const v = options.kubernetesVersion ?? (options.env ?? process.env).CCM_KIT_K8S_VERSION;
  if (!v) return undefined;
  const bare = v.replace(/^v/, '');
  if (!/^1\.\d+(\.\d+)?$/.test(bare)) {
    throw new Error(
      `Kubernetes version ${JSON.stringify(v)} (kubernetesVersion or CCM_KIT_K8S_VERSION): expected a minor such as 1.33 or a release such as 1.33.13`,
    );
  }
  return bare;
}

/** True when store version `version` (`1.33.13`) is the requested `wanted` (a minor `1.33` or the release itself). */
export function versionMatches(version: string, wanted: string): boolean {
  return version === wanted || version.startsWith(`${wanted}.`);
}

/** `kube-apiserver` → `TEST_ASSET_KUBE_APISERVER`, envtest's naming rule. */
export function testAssetEnvName(name: string): string {
  const upper = name
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^[0-9]+/, '');
  return `TEST_ASSET_${upper}`;
}

/** Go's GOOS for this process (`linux`, `darwin`, `windows`, ...). */
export function goOs(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? 'windows' : platform;
}

/** Go's GOARCH for this process (`amd64`, `arm64`, ...). */
export function goArch(arch: string = process.arch): string {
  const map: Record<string, string> = {
    x64: 'amd64',
    ia32: '386',
    arm64: 'arm64',
    arm: 'arm',
    ppc64: 'ppc64le',
  };
  return map[arch] ?? arch;
}

/** The setup-envtest store's directory of versions: `${XDG_DATA_HOME:-~/.local/share}/kubebuilder-envtest/k8s`. */
export function setupEnvtestStoreDir(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const data = env.XDG_DATA_HOME ? env.XDG_DATA_HOME : join(home, '.local', 'share');
  return join(data, 'kubebuilder-envtest', 'k8s');
}

/** The tools/envtest cache root: `$CCM_KIT_ENVTEST_DIR`, else `${XDG_CACHE_HOME:-~/.cache}/ccm-kit/envtest`. */
export function toolsEnvtestCacheDir(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  if (env.CCM_KIT_ENVTEST_DIR) return env.CCM_KIT_ENVTEST_DIR;
  const cache = env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : join(home, '.cache');
  return join(cache, 'ccm-kit', 'envtest');
}

/** This repository's tools/envtest directory (it exists in a checkout, not in a published package). */
export function toolsEnvtestDir(): string {
  // src/control-plane/ and dist/control-plane/ are both four levels below the repository root.
  return fileURLToPath(new URL('../../../../tools/envtest/', import.meta.url));
}

/** Reads the Kubernetes version (without `v`) pinned in tools/envtest/go.mod, or undefined. */
export async function pinnedKubernetesVersion(dir = toolsEnvtestDir()): Promise<string | undefined> {
  try {
    const gomod = await fs.readFile(join(dir, 'go.mod'), 'utf8');
    const m = /^\s*k8s\.io\/kubernetes\s+v(\S+)/m.exec(gomod);
    return m?.[1];
  } catch {
    return undefined;
  }
}

async function isFile(path: string): Promise<boolean> {
  return fs.stat(path).then(
    (st) => st.isFile(),
    () => false,
  );
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    const st = await fs.stat(path);
    if (!st.isFile()) return false;
    await fs.access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Compares `1.36.4` style versions numerically (pre-release suffixes sort before the release). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.split('-', 2);
    return { nums: core.split('.').map((x) => Number.parseInt(x, 10) || 0), pre };
  };
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < Math.max(pa.nums.length, pb.nums.length); i++) {
    const d = (pa.nums[i] ?? 0) - (pb.nums[i] ?? 0);
    if (d !== 0) return d;
  }
  if (pa.pre === pb.pre) return 0;
  if (pa.pre === undefined) return 1;
  if (pb.pre === undefined) return -1;
  return pa.pre < pb.pre ? -1 : 1;
}

/**
 * Version directories `<ver>-<goos>-<goarch>` under `root`, newest first.
 * `preferred` (a version) goes first when present.
 */
async function versionDirs(
  root: string,
  goos: string,
  goarch: string,
  preferred?: string,
  wanted?: string,
): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch {
    return [];
  }
  const suffix = `-${goos}-${goarch}`;
  const versions = names
    .filter((n) => n.endsWith(suffix) && /^\d/.test(n))
    .map((n) => n.slice(0, -suffix.length))
    .filter((v) => wanted === undefined || versionMatches(v, wanted))
    .sort((a, b) => compareVersions(b, a));
  if (preferred && versions.includes(preferred)) {
    versions.splice(versions.indexOf(preferred), 1);
    versions.unshift(preferred);
  }
  return versions.map((v) => join(root, v + suffix));
}

/**
 * Finds one binary. Returns undefined when it is nowhere.
 * @throws Error when `TEST_ASSET_<NAME>` is set but is not an executable file (a broken explicit setting is not ignored).
 */
export async function findControlPlaneBinary(
  name: ControlPlaneBinaryName,
  options: BinaryLookupOptions = {},
): Promise<BinaryLocation | undefined> {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const goos = options.goos ?? goOs();
  const goarch = options.goarch ?? goArch();
  const wanted = requestedKubernetesVersion(options);

  const varName = testAssetEnvName(name);
  const explicit = wanted === undefined ? env[varName] : undefined;
  if (explicit) {
    if (!(await isExecutable(explicit))) {
      throw new Error(`${varName}=${explicit}: not an executable file (unset it or point it at the ${name} binary)`);
    }
    return { path: explicit, source: 'TEST_ASSET' };
  }
  if (env.KUBEBUILDER_ASSETS && wanted === undefined) {
    const p = join(env.KUBEBUILDER_ASSETS, name);
    if (await isExecutable(p)) return { path: p, source: 'KUBEBUILDER_ASSETS' };
  }
  for (const dir of await versionDirs(setupEnvtestStoreDir(env, home), goos, goarch, undefined, wanted)) {
    const p = join(dir, name);
    if (await isExecutable(p)) return { path: p, source: 'setup-envtest' };
  }
  const pinned = 'pinnedVersion' in options ? options.pinnedVersion : await pinnedKubernetesVersion();
  for (const dir of await versionDirs(toolsEnvtestCacheDir(env, home), goos, goarch, pinned, wanted)) {
    const p = join(dir, name);
    // VERSION is written last by build.sh, so its presence marks a complete build.
    if ((await isExecutable(p)) && (await isFile(join(dir, 'VERSION')))) return { path: p, source: 'tools/envtest' };
  }
  return undefined;
}

/** Human-readable list of the places {@link findControlPlaneBinary} looks, for error messages. */
export function describeSearchPath(name: ControlPlaneBinaryName, options: BinaryLookupOptions = {}): string[] {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const platform = `${options.goos ?? goOs()}-${options.goarch ?? goArch()}`;
  const varName = testAssetEnvName(name);
  const wanted = requestedKubernetesVersion(options);
  if (wanted !== undefined) {
    return [
      `setup-envtest store: ${join(setupEnvtestStoreDir(env, home), `${wanted}[.*]-${platform}`, name)}`,
      `tools/envtest cache: ${join(toolsEnvtestCacheDir(env, home), `${wanted}[.*]-${platform}`, name)}`,
    ];
  }
  return [
    `$${varName} (${env[varName] ? env[varName] : 'unset'})`,
    `$KUBEBUILDER_ASSETS/${name} (${env.KUBEBUILDER_ASSETS ? join(env.KUBEBUILDER_ASSETS, name) : 'KUBEBUILDER_ASSETS unset'})`,
    `setup-envtest store: ${join(setupEnvtestStoreDir(env, home), `<version>-${platform}`, name)}`,
    `tools/envtest cache: ${join(toolsEnvtestCacheDir(env, home), `<version>-${platform}`, name)}`,
  ];
}

/**
 * Downloading kube-apiserver, etcd and kubectl as controller-runtime's setup-envtest does
 * (`tools/setup-envtest/remote/http_client.go`, `read_body.go`, `store/store.go`): the releases index
 * (controller-tools' `envtest-releases.yaml`) maps each Kubernetes version to archives named
 * `envtest-v<version>-<os>-<arch>.tar.gz`, each with a `selfLink` and the archive's SHA-512 (`hash`, hex). The
 * archive holds `controller-tools/envtest/{kube-apiserver,etcd,kubectl}`; they are unpacked into the
 * setup-envtest store, `${XDG_DATA_HOME:-~/.local/share}/kubebuilder-envtest/k8s/<version>-<os>-<arch>/`, where
 * {@link findControlPlaneBinary} (and setup-envtest itself) finds them.
 *
 * Nothing half-written stays in the store: the archive goes to a temporary file, is checked against its
 * published checksum, unpacked into a temporary directory next to the version's, and renamed into place last.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { parse as parseYaml } from 'yaml';
import {
  compareVersions,
  goArch,
  goOs,
  requestedKubernetesVersion,
  setupEnvtestStoreDir,
  versionMatches,
} from './binaries.js';

/** setup-envtest's default index (`remote.DefaultIndexURL`). */
export const DEFAULT_ENVTEST_INDEX_URL =
  'https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml';

/** The binaries an envtest archive holds, under `controller-tools/envtest/`. */
const ARCHIVE_DIR = 'controller-tools/envtest/';
const BINARIES = new Set(['kube-apiserver', 'etcd', 'kubectl']);

/** Options of {@link downloadEnvtestBinaries}. */
export interface EnvtestDownloadOptions {
  /** The index; default `$CCM_KIT_ENVTEST_INDEX_URL`, else {@link DEFAULT_ENVTEST_INDEX_URL}. */
  indexUrl?: string;
  /** A minor (`1.36`) or release (`1.36.0`); default `$CCM_KIT_K8S_VERSION`, else the newest in the index. */
  kubernetesVersion?: string;
  /** Environment (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Home directory (default `os.homedir()`), for the store's default location. */
  home?: string;
  /** Go-style OS of the archive, `linux` or `darwin` (default this process'). */
  goos?: string;
  /** Go-style architecture of the archive, `amd64` or `arm64` (default this process'). */
  goarch?: string;
  /** Progress lines. */
  onProgress?: (line: string) => void;
}

/** One archive of the index. */
interface IndexedArchive {
  version: string;
  name: string;
  selfLink: string;
  hash: string;
}

/** The archive of `version`/`goos`/`goarch` that the index lists, newest matching version first. */
function pickArchive(index: unknown, indexUrl: string, goos: string, goarch: string, wanted?: string): IndexedArchive {
  const releases = (index as { releases?: Record<string, Record<string, { hash?: string; selfLink?: string }>> } | null)
    ?.releases;
  if (!releases || typeof releases !== 'object') throw new Error(`envtest index ${indexUrl}: no "releases" map`);
  const found: IndexedArchive[] = [];
  for (const archives of Object.values(releases)) {
    for (const [name, a] of Object.entries(archives ?? {})) {
      const m = /^envtest-v(\d+\.\d+\.\d+(?:-[\w.]+)?)-([a-z0-9]+)-([a-z0-9]+)\.tar\.gz$/.exec(name);
      if (!m || m[2] !== goos || m[3] !== goarch || !a?.selfLink || !a.hash) continue;
      if (wanted !== undefined && !versionMatches(m[1]!, wanted)) continue;
      found.push({ version: m[1]!, name, selfLink: a.selfLink, hash: a.hash.toLowerCase() });
    }
  }
  found.sort((x, y) => compareVersions(y.version, x.version));
  const pick = found.find((f) => !f.version.includes('-')) ?? found[0];
  if (!pick) {
    throw new Error(
      `envtest index ${indexUrl}: no archive for Kubernetes ${wanted ?? '(any version)'} on ${goos}/${goarch}`,
    );
  }
  return pick;
}

async function get(url: string): Promise<Response> {
  const res = await fetch(url, { redirect: 'follow' });
  if (!res.ok || !res.body) throw new Error(`GET ${url}: ${res.status} ${res.statusText}`);
  return res;
}

/**
 * Downloads the platform's envtest binaries of the wanted version into the setup-envtest store, unless that
 * version is there already.
 * @returns the version's store directory (holding kube-apiserver, etcd and kubectl).
 * @throws Error naming the index or archive when the index cannot be read or lists no matching archive, the
 *   download fails, the archive's SHA-512 differs from the index's (`checksum mismatch`), or the archive lacks
 *   kube-apiserver or etcd. The store is left as it was.
 */
export async function downloadEnvtestBinaries(options: EnvtestDownloadOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const indexUrl = options.indexUrl ?? env.CCM_KIT_ENVTEST_INDEX_URL ?? DEFAULT_ENVTEST_INDEX_URL;
  const goos = options.goos ?? goOs();
  const goarch = options.goarch ?? goArch();
  const wanted = requestedKubernetesVersion({
    env,
    ...(options.kubernetesVersion ? { kubernetesVersion: options.kubernetesVersion } : {}),
  });
  const progress = options.onProgress ?? (() => {});

  // Every scalar a string: a hex SHA-512 of digits only must not become a number.
  const index = parseYaml(await (await get(indexUrl)).text(), { schema: 'failsafe' }) as unknown;
  const archive = pickArchive(index, indexUrl, goos, goarch, wanted);
  const store = setupEnvtestStoreDir(env, options.home ?? homedir());
  const target = join(store, `${archive.version}-${goos}-${goarch}`);
  if (await hasBinaries(target)) {
    progress(`envtest ${archive.version} is already in ${target}`);
    return target;
  }
  await fs.mkdir(store, { recursive: true });
  const tmp = join(store, `.download-${archive.version}-${randomBytes(6).toString('hex')}`);
  const tarball = `${tmp}.tar.gz`;
  try {
    progress(`downloading ${archive.name} from ${archive.selfLink}`);
    const res = await get(new URL(archive.selfLink, indexUrl).toString());
    const sha512 = createHash('sha512');
    const hashing = new Transform({
      transform(chunk: Buffer, _enc, done) {
        sha512.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(
      Readable.fromWeb(res.body as Parameters<typeof Readable.fromWeb>[0]),
      hashing,
      createWriteStream(tarball),
    );
    const sum = sha512.digest('hex');
    if (sum !== archive.hash) {
      throw new Error(
        `envtest archive ${archive.name}: checksum mismatch: sha512 ${sum} (computed) != ${archive.hash} (index ${indexUrl}); nothing was installed`,
      );
    }
    await unpack(tarball, tmp);
    for (const b of ['kube-apiserver', 'etcd']) {
      if (!(await hasFile(join(tmp, b))))
        throw new Error(`envtest archive ${archive.name}: no ${ARCHIVE_DIR}${b} in it`);
    }
    await fs.rename(tmp, target).catch(async (err: NodeJS.ErrnoException) => {
      // Another process installed the same version meanwhile: keep its copy.
      if ((err.code === 'ENOTEMPTY' || err.code === 'EEXIST') && (await hasBinaries(target))) return;
      throw err;
    });
    progress(`envtest ${archive.version} installed in ${target}`);
    return target;
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
    await fs.rm(tarball, { force: true });
  }
}

/** Unpacks the binaries of an envtest archive (`controller-tools/envtest/<name>`) into `dir`, mode 0755. */
async function unpack(tarball: string, dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  const ex = extract();
  ex.on('entry', (header, stream, next) => {
    const base = header.name.startsWith(ARCHIVE_DIR) ? header.name.slice(ARCHIVE_DIR.length) : '';
    if (header.type !== 'file' || !BINARIES.has(base)) {
      stream.on('end', next);
      stream.resume();
      return;
    }
    pipeline(stream, createWriteStream(join(dir, base), { mode: 0o755 })).then(() => next(), next);
  });
  await pipeline(createReadStream(tarball), createGunzip(), ex);
}

async function hasFile(path: string): Promise<boolean> {
  return fs.stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function hasBinaries(dir: string): Promise<boolean> {
  return (await hasFile(join(dir, 'kube-apiserver'))) && (await hasFile(join(dir, 'etcd')));
}

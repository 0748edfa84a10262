/**
 * Envtest binaries as controller-runtime's setup-envtest gets them: an envtest releases index and an archive
 * served from 127.0.0.1, the archive packed as the releases are (`controller-tools/envtest/<binary>` in a
 * .tar.gz, its SHA-512 in the index) from the kube-apiserver, etcd and kubectl that tools/envtest built. The
 * testing package downloads and verifies it into the setup-envtest store; a wrong checksum is refused and
 * leaves nothing behind; `ccm-kit envtest` gets the binaries with no Go on PATH.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, promises as fs } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import { downloadEnvtestBinaries, ensureControlPlaneBinaries, findControlPlaneBinary } from '@ccm-kit/testing';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = new URL('../dist/main.js', import.meta.url).pathname;
const GOOD = '1.36.4';
const BAD = '1.35.0';

let dir: string;
let server: Server;
let indexUrl: string;
const served: string[] = [];

/** Packs the binaries as an envtest release archive; returns its path and SHA-512 (hex). */
async function releaseArchive(binaries: Record<string, string>, out: string): Promise<string> {
  const p = pack();
  const writing = pipeline(p, createGzip({ level: 1 }), createWriteStream(out));
  for (const [name, path] of Object.entries(binaries)) {
    const { size } = await fs.stat(path);
    const entry = p.entry({ name: `controller-tools/envtest/${name}`, size, mode: 0o755 });
    await pipeline(createReadStream(path), entry);
  }
  p.finalize();
  await writing;
  const hash = createHash('sha512');
  await pipeline(createReadStream(out), hash);
  return hash.digest('hex');
}

beforeAll(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'ccm-envtest-download-'));
  const found = await Promise.all(
    (['kube-apiserver', 'etcd', 'kubectl'] as const).map(
      async (n) => [n, (await findControlPlaneBinary(n))?.path] as const,
    ),
  );
  const binaries = Object.fromEntries(found.filter(([, p]) => p !== undefined)) as Record<string, string>;
  expect(Object.keys(binaries)).toEqual(expect.arrayContaining(['kube-apiserver', 'etcd']));
  const archive = join(dir, 'release.tar.gz');
  const sha512 = await releaseArchive(binaries, archive);
  server = createServer((req, res) => {
    served.push(req.url ?? '');
    if (req.url === '/envtest-releases.yaml') {
      res.end(
        [
          'releases:',
          `  v${GOOD}:`,
          `    envtest-v${GOOD}-linux-amd64.tar.gz:`,
          `      hash: ${sha512}`,
          `      selfLink: ${indexUrl.replace('envtest-releases.yaml', `envtest-v${GOOD}-linux-amd64.tar.gz`)}`,
          `  v${BAD}:`,
          `    envtest-v${BAD}-linux-amd64.tar.gz:`,
          `      hash: ${'0'.repeat(128)}`,
          `      selfLink: envtest-v${BAD}-linux-amd64.tar.gz`,
          '',
        ].join('\n'),
      );
    } else if (req.url?.endsWith('-linux-amd64.tar.gz')) {
      createReadStream(archive).pipe(res);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  indexUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/envtest-releases.yaml`;
}, 180_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const platform = { goos: 'linux', goarch: 'amd64' };

describe('downloadEnvtestBinaries', () => {
  it('downloads, checks the SHA-512 and unpacks into the setup-envtest store; a second call reuses it', async () => {
    const data = join(dir, 'data-1');
    const env = { XDG_DATA_HOME: data };
    const got = await downloadEnvtestBinaries({ indexUrl, env, kubernetesVersion: '1.36', ...platform });
    expect(got).toBe(join(data, 'kubebuilder-envtest/k8s', `${GOOD}-linux-amd64`));
    const { stdout } = await promisify(execFile)(join(got, 'kube-apiserver'), ['--version']);
    expect(stdout.trim()).toBe(`Kubernetes v${GOOD}`);
    expect((await fs.stat(join(got, 'etcd'))).mode & 0o111).not.toBe(0);
    const downloads = served.filter((u) => u.endsWith('.tar.gz')).length;
    await downloadEnvtestBinaries({ indexUrl, env, kubernetesVersion: GOOD, ...platform });
    expect(served.filter((u) => u.endsWith('.tar.gz')).length).toBe(downloads);
    // The store is where the envtest lookup finds it.
    const found = await findControlPlaneBinary('kube-apiserver', { env, ...platform, kubernetesVersion: '1.36' });
    expect(found).toEqual({ path: join(got, 'kube-apiserver'), source: 'setup-envtest' });
  });

  it('refuses an archive whose checksum differs from the index, and leaves nothing in the store', async () => {
    const data = join(dir, 'data-2');
    await expect(
      downloadEnvtestBinaries({ indexUrl, env: { XDG_DATA_HOME: data }, kubernetesVersion: BAD, ...platform }),
    ).rejects.toThrow(
      /envtest archive envtest-v1\.35\.0-linux-amd64\.tar\.gz: checksum mismatch: sha512 [0-9a-f]{128} \(computed\) != 0{128}/,
    );
    expect(await fs.readdir(join(data, 'kubebuilder-envtest/k8s'))).toEqual([]);
  });

  it('a version the index does not list is a clear error', async () => {
    await expect(
      downloadEnvtestBinaries({
        indexUrl,
        env: { XDG_DATA_HOME: join(dir, 'data-3') },
        kubernetesVersion: '1.30',
        ...platform,
      }),
    ).rejects.toThrow(`envtest index ${indexUrl}: no archive for Kubernetes 1.30 on linux/amd64`);
  });

  it('ensureControlPlaneBinaries({ download }) downloads what the lookup does not find', async () => {
    const env = { XDG_DATA_HOME: join(dir, 'data-4'), XDG_CACHE_HOME: join(dir, 'empty-cache') };
    const bins = await ensureControlPlaneBinaries({
      env,
      home: dir,
      ...platform,
      pinnedVersion: undefined,
      download: indexUrl,
    });
    expect(bins.kubeApiServer).toBe(
      join(dir, 'data-4/kubebuilder-envtest/k8s', `${GOOD}-linux-amd64`, 'kube-apiserver'),
    );
  });
});

describe('ccm-kit envtest', () => {
  it('gets the binaries from the index with no Go on PATH and prints their directory', async () => {
    const data = join(dir, 'data-cli');
    const path = dirname(process.execPath); // node only
    expect(existsSync(join(path, 'go'))).toBe(false);
    const child = spawn(process.execPath, [CLI, 'envtest', '--kubernetes-version', '1.36'], {
      env: {
        PATH: path,
        HOME: dir,
        XDG_DATA_HOME: data,
        XDG_CACHE_HOME: join(dir, 'cli-cache'),
        CCM_KIT_ENVTEST_INDEX_URL: indexUrl,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code, stderr).toBe(0);
    const assets = join(data, 'kubebuilder-envtest/k8s', `${GOOD}-linux-amd64`);
    expect(stdout.trim()).toBe(assets);
    expect(stderr).toContain(`downloading envtest-v${GOOD}-linux-amd64.tar.gz`);
    for (const b of ['kube-apiserver', 'etcd', 'kubectl']) expect(existsSync(join(assets, b))).toBe(true);
  }, 120_000);
});

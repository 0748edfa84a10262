import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  compareVersions,
  describeSearchPath,
  findControlPlaneBinary,
  testAssetEnvName,
} from '../src/control-plane/binaries.js';
import { ControlPlaneBinariesMissingError, ensureControlPlaneBinaries } from '../src/control-plane/ensure-binaries.js';

let root: string;

function exe(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

function stamp(dir: string): void {
  writeFileSync(join(dir, 'VERSION'), 'k8s=v1 etcd=v3\n');
}

// Every location exists in an isolated home; no real environment is read.
const base = () => ({ home: join(root, 'home'), goos: 'linux', goarch: 'amd64', pinnedVersion: undefined });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cp-bin-test-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('testAssetEnvName', () => {
  it('follows envtest naming', () => {
    expect(testAssetEnvName('kube-apiserver')).toBe('TEST_ASSET_KUBE_APISERVER');
    expect(testAssetEnvName('etcd')).toBe('TEST_ASSET_ETCD');
    expect(testAssetEnvName('kubectl')).toBe('TEST_ASSET_KUBECTL');
    expect(testAssetEnvName('3d--tool.x')).toBe('TEST_ASSET_D_TOOL_X');
  });
});

describe('compareVersions', () => {
  it('orders numerically, pre-releases first', () => {
    const v = ['1.9.0', '1.36.4', '1.36.10', '1.36.4-rc.1', '1.4.0'];
    expect(v.sort(compareVersions)).toEqual(['1.4.0', '1.9.0', '1.36.4-rc.1', '1.36.4', '1.36.10']);
  });
});

describe('findControlPlaneBinary lookup order', () => {
  function layout() {
    const home = join(root, 'home');
    const explicit = exe(join(root, 'explicit', 'kube-apiserver'));
    const assets = join(root, 'assets');
    exe(join(assets, 'kube-apiserver'));
    const store = join(home, '.local/share/kubebuilder-envtest/k8s');
    exe(join(store, '1.35.0-linux-amd64', 'kube-apiserver'));
    exe(join(store, '1.36.2-linux-amd64', 'kube-apiserver'));
    exe(join(store, '1.99.0-darwin-arm64', 'kube-apiserver'));
    const cache = join(home, '.cache/ccm-kit/envtest');
    exe(join(cache, '1.36.4-linux-amd64', 'kube-apiserver'));
    stamp(join(cache, '1.36.4-linux-amd64'));
    return { explicit, assets, store, cache };
  }

  it('1. TEST_ASSET_<NAME> wins', async () => {
    const l = layout();
    const env = { TEST_ASSET_KUBE_APISERVER: l.explicit, KUBEBUILDER_ASSETS: l.assets };
    await expect(findControlPlaneBinary('kube-apiserver', { ...base(), env })).resolves.toEqual({
      path: l.explicit,
      source: 'TEST_ASSET',
    });
  });

  it('2. then $KUBEBUILDER_ASSETS/<name>', async () => {
    const l = layout();
    await expect(
      findControlPlaneBinary('kube-apiserver', { ...base(), env: { KUBEBUILDER_ASSETS: l.assets } }),
    ).resolves.toEqual({ path: join(l.assets, 'kube-apiserver'), source: 'KUBEBUILDER_ASSETS' });
  });

  it('3. then the newest matching setup-envtest store version (XDG_DATA_HOME honoured)', async () => {
    const l = layout();
    await expect(findControlPlaneBinary('kube-apiserver', { ...base(), env: {} })).resolves.toEqual({
      path: join(l.store, '1.36.2-linux-amd64', 'kube-apiserver'),
      source: 'setup-envtest',
    });
    const data = join(root, 'xdg-data');
    exe(join(data, 'kubebuilder-envtest/k8s/1.30.0-linux-amd64/kube-apiserver'));
    const found = await findControlPlaneBinary('kube-apiserver', { ...base(), env: { XDG_DATA_HOME: data } });
    expect(found?.path).toBe(join(data, 'kubebuilder-envtest/k8s/1.30.0-linux-amd64/kube-apiserver'));
  });

  it('KUBEBUILDER_ASSETS without the binary falls through to the next location', async () => {
    const l = layout();
    const empty = join(root, 'empty');
    mkdirSync(empty);
    const found = await findControlPlaneBinary('kube-apiserver', {
      ...base(),
      env: { KUBEBUILDER_ASSETS: empty },
    });
    expect(found?.source).toBe('setup-envtest');
    expect(found?.path.startsWith(l.store)).toBe(true);
  });

  it('4. then the tools/envtest cache, only complete builds (VERSION), pinned version first', async () => {
    const cache = join(root, 'cache');
    const env = { CCM_KIT_ENVTEST_DIR: cache };
    exe(join(cache, '1.37.0-linux-amd64', 'etcd')); // newest, but no VERSION: an unfinished build
    exe(join(cache, '1.36.4-linux-amd64', 'etcd'));
    stamp(join(cache, '1.36.4-linux-amd64'));
    exe(join(cache, '1.36.5-linux-amd64', 'etcd'));
    stamp(join(cache, '1.36.5-linux-amd64'));
    expect((await findControlPlaneBinary('etcd', { ...base(), env }))?.path).toBe(
      join(cache, '1.36.5-linux-amd64', 'etcd'),
    );
    expect((await findControlPlaneBinary('etcd', { ...base(), env, pinnedVersion: '1.36.4' }))?.path).toBe(
      join(cache, '1.36.4-linux-amd64', 'etcd'),
    );
    // XDG_CACHE_HOME is the default root when CCM_KIT_ENVTEST_DIR is unset.
    const xdg = join(root, 'xdg-cache');
    exe(join(xdg, 'ccm-kit/envtest/1.36.4-linux-amd64/etcd'));
    stamp(join(xdg, 'ccm-kit/envtest/1.36.4-linux-amd64'));
    expect((await findControlPlaneBinary('etcd', { ...base(), env: { XDG_CACHE_HOME: xdg } }))?.source).toBe(
      'tools/envtest',
    );
  });

  it('a requested version (option or CCM_KIT_K8S_VERSION) searches only the stores, and only that version', async () => {
    const l = layout();
    exe(join(l.cache, '1.33.13-linux-amd64', 'kube-apiserver'));
    stamp(join(l.cache, '1.33.13-linux-amd64'));
    const env = { TEST_ASSET_KUBE_APISERVER: l.explicit, KUBEBUILDER_ASSETS: l.assets };
    await expect(
      findControlPlaneBinary('kube-apiserver', { ...base(), env, kubernetesVersion: '1.33' }),
    ).resolves.toEqual({ path: join(l.cache, '1.33.13-linux-amd64', 'kube-apiserver'), source: 'tools/envtest' });
    expect(
      (await findControlPlaneBinary('kube-apiserver', { ...base(), env: { ...env, CCM_KIT_K8S_VERSION: 'v1.35' } }))
        ?.path,
    ).toBe(join(l.store, '1.35.0-linux-amd64', 'kube-apiserver'));
    expect(
      (await findControlPlaneBinary('kube-apiserver', { ...base(), env, kubernetesVersion: '1.36.4' }))?.path,
    ).toBe(join(l.cache, '1.36.4-linux-amd64', 'kube-apiserver'));
    // 1.3 is not 1.33, and a version nowhere is not found (no fallback to another version).
    await expect(
      findControlPlaneBinary('kube-apiserver', { ...base(), env, kubernetesVersion: '1.3' }),
    ).resolves.toBeUndefined();
    await expect(
      findControlPlaneBinary('kube-apiserver', { ...base(), env, kubernetesVersion: '1.34' }),
    ).resolves.toBeUndefined();
    await expect(
      findControlPlaneBinary('kube-apiserver', { ...base(), env, kubernetesVersion: 'latest' }),
    ).rejects.toThrow(/CCM_KIT_K8S_VERSION\): expected a minor such as 1\.33/);
  });

  it('returns undefined when nothing is found, and skips non-executable files', async () => {
    const assets = join(root, 'assets');
    mkdirSync(assets);
    writeFileSync(join(assets, 'etcd'), 'not executable');
    await expect(
      findControlPlaneBinary('etcd', { ...base(), env: { KUBEBUILDER_ASSETS: assets } }),
    ).resolves.toBeUndefined();
  });

  it('a TEST_ASSET_* that points at nothing is an error naming the variable', async () => {
    await expect(
      findControlPlaneBinary('etcd', { ...base(), env: { TEST_ASSET_ETCD: join(root, 'nope') } }),
    ).rejects.toThrow(/TEST_ASSET_ETCD=.*not an executable file/);
  });

  it('describeSearchPath lists all four places', () => {
    const lines = describeSearchPath('etcd', { ...base(), env: {} });
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain('$TEST_ASSET_ETCD (unset)');
    expect(lines[2]).toContain(join(root, 'home/.local/share/kubebuilder-envtest/k8s/<version>-linux-amd64/etcd'));
    expect(lines[3]).toContain(join(root, 'home/.cache/ccm-kit/envtest/<version>-linux-amd64/etcd'));
  });
});

describe('ensureControlPlaneBinaries', () => {
  it('returns the found binaries, with kubectl when present', async () => {
    const assets = join(root, 'assets');
    for (const b of ['kube-apiserver', 'etcd', 'kubectl']) exe(join(assets, b));
    await expect(ensureControlPlaneBinaries({ ...base(), env: { KUBEBUILDER_ASSETS: assets } })).resolves.toEqual({
      kubeApiServer: join(assets, 'kube-apiserver'),
      etcd: join(assets, 'etcd'),
      kubectl: join(assets, 'kubectl'),
    });
  });

  it('without build: throws instructions naming what is missing and how to provide it', async () => {
    const assets = join(root, 'assets');
    exe(join(assets, 'kube-apiserver'));
    const err = await ensureControlPlaneBinaries({ ...base(), env: { KUBEBUILDER_ASSETS: assets } }).catch((e) => e);
    expect(err).toBeInstanceOf(ControlPlaneBinariesMissingError);
    expect(err.missing).toEqual(['etcd']);
    expect(err.message).toContain('npm run envtest:build');
    expect(err.message).toContain('npx ccm-kit envtest');
    expect(err.message).toContain('KUBEBUILDER_ASSETS');
    expect(err.message).toContain('TEST_ASSET_KUBE_APISERVER');
    expect(err.message).toContain('Looked for etcd in:');
  });

  it('with build: runs build.sh, reports progress, then finds its output', async () => {
    const tools = join(root, 'tools');
    const cache = join(root, 'cache');
    mkdirSync(tools);
    writeFileSync(
      join(tools, 'build.sh'),
      [
        'set -e',
        'd="$CCM_KIT_ENVTEST_DIR/1.36.4-linux-amd64"; mkdir -p "$d"',
        'echo "building fake binaries" >&2',
        'for b in kube-apiserver etcd kubectl; do printf "#!/bin/sh\\n" > "$d/$b"; chmod +x "$d/$b"; done',
        'echo stamp > "$d/VERSION"',
        'echo "$d"',
      ].join('\n'),
    );
    const env = { CCM_KIT_ENVTEST_DIR: cache, PATH: process.env.PATH };
    const progress: string[] = [];
    const bins = await ensureControlPlaneBinaries({
      ...base(),
      env,
      build: true,
      toolsDir: tools,
      onProgress: (l) => progress.push(l),
    });
    expect(bins.kubeApiServer).toBe(join(cache, '1.36.4-linux-amd64', 'kube-apiserver'));
    expect(bins.etcd).toBe(join(cache, '1.36.4-linux-amd64', 'etcd'));
    expect(progress).toContain('building fake binaries');
  });

  it('with build and a requested version: runs build.sh <version>', async () => {
    const tools = join(root, 'tools');
    const cache = join(root, 'cache');
    mkdirSync(tools);
    writeFileSync(
      join(tools, 'build.sh'),
      [
        'set -e',
        'd="$CCM_KIT_ENVTEST_DIR/$1.13-linux-amd64"; mkdir -p "$d"',
        'for b in kube-apiserver etcd; do printf "#!/bin/sh\\n" > "$d/$b"; chmod +x "$d/$b"; done',
        'echo stamp > "$d/VERSION"',
        'echo "$d"',
      ].join('\n'),
    );
    const env = { CCM_KIT_ENVTEST_DIR: cache, PATH: process.env.PATH };
    const bins = await ensureControlPlaneBinaries({
      ...base(),
      env,
      build: true,
      toolsDir: tools,
      kubernetesVersion: '1.33',
    });
    expect(bins.kubeApiServer).toBe(join(cache, '1.33.13-linux-amd64', 'kube-apiserver'));
  });

  it('with build: a failing build.sh becomes instructions carrying its output', async () => {
    const tools = join(root, 'tools');
    mkdirSync(tools);
    writeFileSync(join(tools, 'build.sh'), 'echo "go: command not found" >&2; exit 3\n');
    const err = await ensureControlPlaneBinaries({
      ...base(),
      env: { PATH: process.env.PATH },
      build: true,
      toolsDir: tools,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(ControlPlaneBinariesMissingError);
    expect(err.message).toContain('exit code 3');
    expect(err.message).toContain('go: command not found');
    expect(err.message).toContain('Provide them in one of these ways');
  });

  it('with build but no tools/envtest (published package): says so', async () => {
    const err = await ensureControlPlaneBinaries({
      ...base(),
      env: {},
      build: true,
      toolsDir: join(root, 'missing'),
    }).catch((e) => e);
    expect(err).toBeInstanceOf(ControlPlaneBinariesMissingError);
    expect(err.message).toContain('cannot be built here');
  });
});

/**
 * Packs @ccm-kit/cloud-provider with `npm pack`, installs the tarball into a fresh TypeScript project
 * outside the repo, and type-checks a provider written against it with the repo's tsc: what a vendor
 * experiences after `npm install @ccm-kit/cloud-provider`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(pkgDir, '../..');
const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');

function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf-8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, stdout: r.stdout ?? '' };
}

const GOOD_PROVIDER = `
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';
import {
  type CloudProvider,
  type InstanceMetadata,
  type InstancesV2,
  type LoadBalancer,
  defaultLoadBalancerName,
  initCloudProvider,
  InstanceNotFoundError,
  LABEL_TOPOLOGY_ZONE,
  registerCloudProvider,
  RetryError,
} from '@ccm-kit/cloud-provider';

export class PackedCloud implements CloudProvider, InstancesV2, LoadBalancer {
  constructor(readonly config: string | undefined) {}
  providerName(): string { return 'packed'; }
  hasClusterID(): boolean { return true; }
  instancesV2(): InstancesV2 { return this; }
  loadBalancer(): LoadBalancer { return this; }

  async instanceExists(node: V1Node, _signal?: AbortSignal): Promise<boolean> {
    return node.spec?.providerID !== 'packed://gone';
  }
  async instanceShutdown(_node: V1Node): Promise<boolean> { return false; }
  async instanceMetadata(node: V1Node): Promise<InstanceMetadata | undefined> {
    if (!node.metadata?.name) throw new InstanceNotFoundError();
    return { providerID: 'packed://' + node.metadata.name, zone: node.metadata.labels?.[LABEL_TOPOLOGY_ZONE] };
  }

  async getLoadBalancer(_cluster: string, _svc: V1Service): Promise<V1LoadBalancerStatus | undefined> {
    return undefined;
  }
  getLoadBalancerName(_cluster: string, svc: V1Service): string { return defaultLoadBalancerName(svc); }
  async ensureLoadBalancer(_cluster: string, _svc: V1Service, nodes: V1Node[]): Promise<V1LoadBalancerStatus> {
    if (nodes.length === 0) throw new RetryError('no nodes yet', 5_000);
    return { ingress: [{ ip: '203.0.113.10' }] };
  }
  async updateLoadBalancer(_cluster: string, _svc: V1Service, _nodes: V1Node[]): Promise<void> {}
  async ensureLoadBalancerDeleted(_cluster: string, _svc: V1Service): Promise<void> {}
}

registerCloudProvider('packed', async (config) => new PackedCloud(config));
const cloud: CloudProvider | undefined = await initCloudProvider('packed');
if (cloud?.providerName() !== 'packed') throw new Error('initCloudProvider did not build the provider');
console.log('PACKED_OK', cloud.instancesV2?.() !== undefined, cloud.loadBalancer?.() !== undefined);
`;

const BAD_PROVIDER = `
import type { V1Node } from '@kubernetes/client-node';
import { type CloudProvider, type InstancesV2, registerCloudProvider } from '@ccm-kit/cloud-provider';

// Wrong on purpose: instanceExists resolves to a string, and providerName is missing.
export class BadCloud implements CloudProvider, InstancesV2 {
  hasClusterID(): boolean { return true; }
  async instanceExists(_node: V1Node): Promise<string> { return 'yes'; }
  async instanceShutdown(_node: V1Node): Promise<boolean> { return false; }
  async instanceMetadata(_node: V1Node) { return undefined; }
}
registerCloudProvider('bad', () => new BadCloud());
`;

function tsconfig(file: string) {
  return JSON.stringify({
    compilerOptions: {
      target: 'es2023',
      lib: ['es2023'],
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
    },
    files: [file],
  });
}

describe('npm pack of @ccm-kit/cloud-provider', () => {
  let work: string;
  let consumer: string;
  let tarball: string;
  let packedFiles: string[] = [];
  let installLog = '';

  beforeAll(() => {
    // Make sure dist is current (a no-op right after `npm test`'s build).
    const build = run(process.execPath, [tsc, '-b', pkgDir], repoRoot);
    expect(build.status, build.out).toBe(0);

    work = mkdtempSync(join(tmpdir(), 'ccm-pack-'));
    const pack = run('npm', ['pack', '--json', '--pack-destination', work], pkgDir);
    expect(pack.status, pack.out).toBe(0);
    const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    tarball = join(work, info[0]?.filename ?? '');
    packedFiles = (info[0]?.files ?? []).map((f) => f.path);

    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const install = run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], consumer);
    installLog = install.out;
    const modules = join(consumer, 'node_modules');
    if (install.status !== 0 || !existsSync(join(modules, '@ccm-kit/cloud-provider/package.json'))) {
      // Offline install failed (empty npm cache): unpack the tarball and borrow the repo's dependencies.
      const target = join(modules, '@ccm-kit/cloud-provider');
      mkdirSync(target, { recursive: true });
      const untar = run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], consumer);
      expect(untar.status, untar.out).toBe(0);
    }
    for (const dep of ['@kubernetes/client-node', '@types/node']) {
      const dest = join(modules, dep);
      if (!existsSync(dest)) {
        mkdirSync(dirname(dest), { recursive: true });
        symlinkSync(join(repoRoot, 'node_modules', dep), dest, 'dir');
      }
    }
    writeFileSync(join(consumer, 'good.ts'), GOOD_PROVIDER);
    writeFileSync(join(consumer, 'bad.ts'), BAD_PROVIDER);
    writeFileSync(join(consumer, 'tsconfig.good.json'), tsconfig('good.ts'));
    writeFileSync(join(consumer, 'tsconfig.bad.json'), tsconfig('bad.ts'));
  }, 120_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs the built JavaScript, declarations and README, not the tests', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']),
    );
    expect(packedFiles).toEqual(expect.arrayContaining(['dist/registry.d.ts', 'dist/helpers/node-taints.d.ts']));
    expect(packedFiles.some((f) => f.startsWith('test/'))).toBe(false);
    expect(packedFiles.some((f) => f.endsWith('.tsbuildinfo'))).toBe(false);
  });

  it('installs into a project outside the repo', () => {
    expect(consumer.startsWith(repoRoot)).toBe(false);
    const installed = readdirSync(join(consumer, 'node_modules/@ccm-kit/cloud-provider'));
    expect(installed, installLog).toEqual(expect.arrayContaining(['dist', 'package.json']));
  });

  it('type-checks a provider implementing CloudProvider + InstancesV2 + LoadBalancer', () => {
    const r = run(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.good.json'], consumer);
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it('rejects a provider that gets the contract wrong', () => {
    const r = run(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.bad.json'], consumer);
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/bad\.ts\(\d+,\d+\): error TS\d+/);
    expect(r.out).toContain('providerName');
    expect(r.out).toContain('instanceExists');
  }, 120_000);

  it('runs: the packed ESM build registers and initializes the provider under Node', () => {
    const build = run(
      process.execPath,
      [tsc, '-p', 'tsconfig.good.json', '--noEmit', 'false', '--outDir', 'out'],
      consumer,
    );
    expect(build.status, build.out).toBe(0);
    const r = run(process.execPath, [join(consumer, 'out/good.js')], consumer);
    expect(r.out).toContain('PACKED_OK true true');
    expect(r.status).toBe(0);
  }, 120_000);
});

/**
 * ccm-kit as a vendor meets it: every package packed with `npm pack` (no workspace links), a project
 * made by create-ccm-kit in a temporary directory outside the repository, its own `npm install` (from
 * the tarballs, third-party packages from the registry) and `npm test` (stubs pending), then the stubs
 * filled with a tiny in-memory cloud and `ccm-kit dev` run until a Node is initialized and a LoadBalancer
 * Service has its ingress. Prints the time of each step.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_MEMORY_PROVIDER } from './in-memory-provider.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PACKAGES = ['cloud-provider', 'runtime', 'controllers', 'app', 'testing', 'cli', 'create-ccm-kit'];
const work = mkdtempSync(join(tmpdir(), 'ccm-kit-vendor-'));
const project = join(work, 'acme-ccm');
const timings: Array<[string, number]> = [];

function run(cmd: string, args: string[], cwd: string, timeoutMs = 600_000) {
  const started = Date.now();
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    // The project's own npm and node; no workspace, no CI-only config from the repository.
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', FORCE_COLOR: '0' },
  });
  timings.push([`${cmd} ${args.slice(0, 2).join(' ')}`, Date.now() - started]);
  return { status: r.status, out: stripVTControlCharacters(`${r.stdout ?? ''}${r.stderr ?? ''}`) };
}
const npm = (args: string[], cwd: string, timeoutMs?: number) => run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, cwd, timeoutMs);
const tarballs: Record<string, string> = {};

beforeAll(() => {
  const dir = join(work, 'tarballs');
  mkdirSync(dir);
  for (const p of PACKAGES) {
    const r = npm(['pack', '--pack-destination', dir.replace(/\\/g, '/'), '--silent'], join(repoRoot, 'packages', p));
    expect(r.status, r.out).toBe(0);
  }
  for (const f of readdirSync(dir)) {
    const name = f.startsWith('create-ccm-kit') ? 'create-ccm-kit' : `@ccm-kit/${f.replace(/^ccm-kit-/, '').replace(/-\d+\.\d+\.\d+\.tgz$/, '')}`;
    tarballs[name] = join(dir, f);
  }
  expect(Object.keys(tarballs).sort()).toEqual(['@ccm-kit/app', '@ccm-kit/cli', '@ccm-kit/cloud-provider', '@ccm-kit/controllers', '@ccm-kit/runtime', '@ccm-kit/testing', 'create-ccm-kit']);
}, 300_000);

afterAll(() => {
  console.info(`vendor flow timings:\n${timings.map(([s, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${s}`).join('\n')}`);
  rmSync(work, { recursive: true, force: true });
});

/** The tarballs in place of the registry for @ccm-kit/* (direct and transitive). */
function useTarballs(pkgPath: string): void {
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  const file = (n: string) => `file:${tarballs[n]}`;
  for (const field of ['dependencies', 'devDependencies']) for (const n of Object.keys(pkg[field] ?? {})) if (tarballs[n]) pkg[field][n] = file(n);
  pkg.overrides = Object.fromEntries(Object.keys(tarballs).filter((n) => n.startsWith('@ccm-kit/')).map((n) => [n, file(n)]));
  writeFileSync(pkgPath, JSON.stringify(pkg, null, 2));
}

describe('a vendor, from npm create ccm-kit to a CCM serving a LoadBalancer', () => {
  it('create-ccm-kit writes the project', () => {
    const tools = join(work, 'create');
    writeFileSync(join(work, 'package.json'), '{}');
    const installed = npm(['install', '--prefix', tools, tarballs['create-ccm-kit']!, ...Object.values(tarballs)], work);
    expect(installed.status, installed.out).toBe(0);
    const r = run(process.execPath, [join(tools, 'node_modules/create-ccm-kit/dist/main.js'), project, '--provider', 'acme', '--facets', 'instancesV2,loadBalancer', '--yes'], work);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain('for provider "acme" with instancesV2, loadBalancer');
    expect(readdirSync(project).sort()).toEqual(
      ['.dockerignore', '.github', '.gitignore', 'Dockerfile', 'README.md', 'chart', 'dev', 'package.json', 'src', 'test', 'tsconfig.json'],
    );
  }, 600_000);

  it('npm install and npm test pass out of the box, the stubs pending', () => {
    useTarballs(join(project, 'package.json'));
    const install = npm(['install'], project, 900_000);
    expect(install.status, install.out).toBe(0);
    const build = npm(['run', 'build'], project);
    expect(build.status, build.out).toBe(0);
    const test = npm(['test'], project);
    expect(test.status, test.out).toBe(0);
    expect(test.out).toMatch(/Tests\s+\d+ passed \| \d+ skipped/);
    const conformance = run(process.execPath, [join(project, 'node_modules/@ccm-kit/cli/dist/main.js'), 'conformance'], project);
    expect(conformance.status, conformance.out).toBe(0);
    expect(conformance.out).toMatch(/provider conformance: \d+ passed, [1-9]\d* pending, 0 broke/);
    expect(conformance.out).toContain('PENDING  instancesV2 › instanceExists is true for existingNode — instanceExists not implemented');
  }, 1_200_000);

  it('with the stubs filled in: conformance passes, and ccm-kit dev initializes Nodes and serves a LoadBalancer', () => {
    writeFileSync(join(project, 'src/provider.ts'), IN_MEMORY_PROVIDER);
    const cli = join(project, 'node_modules/@ccm-kit/cli/dist/main.js');
    const conformance = run(process.execPath, [cli, 'conformance'], project);
    expect(conformance.status, conformance.out).toBe(0);
    expect(conformance.out).toMatch(/provider conformance: \d+ passed, 0 pending, 0 broke/);
    const dev = run(process.execPath, [cli, 'dev', '--cloud-config', 'dev/cloud-config.yaml', '--nodes', '2', '--zones', 'a,b', '--service', '--exit-when-ready', '--duration', '120'], project, 180_000);
    expect(dev.status, dev.out).toBe(0);
    expect(dev.out).toMatch(/nodes initialized: 2\/2 {3}load balancers served: 1\/1/);
    expect(dev.out).toMatch(/default\/dev-lb +LoadBalancer +\S+ +203\.0\.113\.10/);
    expect(dev.out).toMatch(/dev-node-1 +acme:\/\/dev-node-1 +dev-1a +a1\.small/);
  }, 300_000);

  it('ccm-kit build bundles the CCM into one file that runs without node_modules', () => {
    const cli = join(project, 'node_modules/@ccm-kit/cli/dist/main.js');
    const built = run(process.execPath, [cli, 'build'], project);
    expect(built.status, built.out).toBe(0);
    const alone = join(work, 'bundle-only');
    const copy = run('cp', ['-r', join(project, 'dist/bundle'), alone], work);
    expect(copy.status, copy.out).toBe(0);
    const help = run(process.execPath, [join(alone, 'main.mjs'), '--help'], alone);
    expect(help.status, help.out).toBe(0);
    expect(help.out).toContain('--cloud-provider');
    const version = run(process.execPath, [join(alone, 'main.mjs'), '--version'], alone);
    expect(version.out).toMatch(/^acme-cloud-controller-manager v0\.1\.0/);
  }, 300_000);
});

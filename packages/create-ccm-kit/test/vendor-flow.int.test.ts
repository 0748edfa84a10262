/**
 * ccm-kit as a vendor meets it after release: every package published to a real npm registry on loopback
 * (Verdaccio, tools/local-registry; third-party packages through it from registry.npmjs.org), a project made by
 * `npm create ccm-kit@<version>` in a temporary directory outside the repository, its own `npm install` from
 * that registry (no workspace links, no `file:` dependencies) and `npm test` (stubs pending), then the stubs
 * filled with a tiny in-memory cloud and `ccm-kit dev` run until a Node is initialized and a LoadBalancer
 * Service has its ingress; then the provider's source is changed while dev runs, and dev must rebuild and
 * restart the CCM, whose new behaviour (another zone, another address range) shows on the existing Service
 * and on a Node and a Service created afterwards. Prints the time of each step, and the time from `npm create`
 * to a LoadBalancer Service with an ingress IP.
 *
 * A vendor's second day is covered on the way: the project pins Node.js (its npm scripts run on the pinned major,
 * whatever the machine's node), `npm create` without a terminal takes flags only and names the defaults it took,
 * the registry it ran with lands in the project's .npmrc (the install uses nothing else), `ccm-kit dev` runs the
 * CCM with routes on and the dev Nodes' Pod CIDRs and says why the route controller did not start (no Routes),
 * a restart is followed by a "running again" line, and the bundle refuses an unknown flag with exit 1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { kubectl } from '../../cli/test/kubectl.js';
import {
  type LocalRegistry,
  publishPackages,
  startLocalRegistry,
} from '../../../tools/local-registry/local-registry.ts';
import { IN_MEMORY_PROVIDER } from './in-memory-provider.js';

const work = mkdtempSync(join(tmpdir(), 'ccm-kit-vendor-'));
const project = join(work, 'acme-ccm');
const timings: Array<[string, number]> = [];

/**
 * Runs a command as the vendor would. `registryFlag`: npm's registry given on the command line, as
 * `npm create … --registry <url>` does (npm hands it on as npm_config_registry); otherwise the registry comes
 * from the project's .npmrc alone.
 */
function run(cmd: string, args: string[], cwd: string, timeoutMs = 600_000, registryFlag = false) {
  const started = Date.now();
  // The project's own npm and node; no workspace, no CI-only config from the repository.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    FORCE_COLOR: '0',
  };
  delete env.npm_config_registry;
  if (registryFlag) env.npm_config_registry = registry.url;
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: timeoutMs, env });
  timings.push([`${cmd} ${args.slice(0, 2).join(' ')}`, Date.now() - started]);
  return { status: r.status, out: stripVTControlCharacters(`${r.stdout ?? ''}${r.stderr ?? ''}`) };
}
const npm = (args: string[], cwd: string, timeoutMs?: number, registryFlag?: boolean) =>
  run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, cwd, timeoutMs, registryFlag);
let registry: LocalRegistry;
let version: string;
/** When `npm create` started, for the time to the first LoadBalancer ingress. */
let createdAt = 0;

/** A free loopback port for Verdaccio (it does not pick one itself). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

beforeAll(async () => {
  const started = Date.now();
  registry = await startLocalRegistry({ port: await freePort(), dir: join(work, 'registry') });
  version = publishPackages(registry);
  timings.push(['verdaccio up, 7 packages published', Date.now() - started]);
}, 300_000);

afterAll(async () => {
  await registry?.stop();
  console.info(
    `vendor flow timings:\n${timings.map(([s, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${s}`).join('\n')}`,
  );
  rmSync(work, { recursive: true, force: true });
});

/** Objects created after the provider changed: a Node as a kubelet registers it, and a LoadBalancer Service. */
const AFTER_THE_CHANGE = `
apiVersion: v1
kind: Node
metadata: { name: node-3 }
spec:
  taints: [{ key: node.cloudprovider.kubernetes.io/uninitialized, value: "true", effect: NoSchedule }]
---
apiVersion: v1
kind: Service
metadata: { name: dev-lb-2, namespace: default }
spec: { type: LoadBalancer, selector: { app: dev-lb-2 }, ports: [{ port: 80, targetPort: 8080 }] }
`;

/** `ccm-kit dev` in the background (the test changes the source while it runs), its output collected. */
function startDev(args: string[], cwd: string) {
  const started = Date.now();
  const child = spawn(process.execPath, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += stripVTControlCharacters(d.toString())));
  child.stderr.on('data', (d: Buffer) => (out += stripVTControlCharacters(d.toString())));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    output: () => out,
    /** Resolves once the output matches `re` (timing recorded as `step`); rejects with the output after 120 s or when dev exits. */
    async waitFor(re: RegExp, step: string): Promise<void> {
      const seen = vi.waitFor(
        () => {
          if (!re.test(out)) throw new Error('not yet');
        },
        { timeout: 120_000, interval: 250 },
      );
      const exit = exited.then((code) => {
        if (!re.test(out)) throw new Error(`ccm-kit dev exited (${code})`);
      });
      // The race below reports whichever settles first; the other one's later rejection is of no interest.
      seen.catch(() => {});
      exit.catch(() => {});
      try {
        await Promise.race([seen, exit]);
      } catch (err) {
        throw new Error(`ccm-kit dev: no ${re} (${step}) in its output (${(err as Error).message}):\n${out}`, {
          cause: err,
        });
      }
      timings.push([`ccm-kit dev: ${step}`, Date.now() - started]);
    },
    /** Ctrl-C, as a vendor stops it. @returns the exit status. */
    async stop(): Promise<number | null> {
      if (child.exitCode === null) child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

describe('a vendor, from npm create ccm-kit to a CCM serving a LoadBalancer', () => {
  it('npm create ccm-kit@<version> writes the project', () => {
    // npm exec reuses a create-ccm-kit of the same version installed by an earlier run (under <npm cache>/_npx)
    // without asking the registry; remove those so the scaffolder just published is the one that runs.
    const npmCache = npm(['config', 'get', 'cache'], work).out.trim();
    for (const dir of existsSync(join(npmCache, '_npx')) ? readdirSync(join(npmCache, '_npx')) : [])
      if (existsSync(join(npmCache, '_npx', dir, 'node_modules', 'create-ccm-kit')))
        rmSync(join(npmCache, '_npx', dir), { recursive: true, force: true });
    createdAt = Date.now();
    // --yes before the package: npm's own "Ok to proceed?" (a vendor on a terminal answers it).
    const r = npm(['create', '--yes', `ccm-kit@${version}`, project, '--', '--provider', 'acme'], work, 600_000, true);
    expect(r.status, r.out).toBe(0);
    // No terminal here: no questions, only the flags count, and the defaults taken are named.
    expect(r.out).toContain(
      'create-ccm-kit: no terminal: nothing is asked, only flags are read; took the defaults --facets instancesV2,loadBalancer',
    );
    expect(r.out).toContain('for provider "acme" with instancesV2, loadBalancer');
    // The registry npm create ran with is the project's (a plain npm install 404s before a release otherwise).
    expect(readFileSync(join(project, '.npmrc'), 'utf8')).toBe(`registry=${registry.url}\n`);
    expect(r.out).toContain(`npm install       # from ${registry.url} (written to .npmrc)`);
    expect(readdirSync(project).sort()).toEqual([
      '.dockerignore',
      '.github',
      '.gitignore',
      '.npmrc',
      'Dockerfile',
      'README.md',
      'chart',
      'dev',
      'package.json',
      'src',
      'test',
      'tsconfig.json',
      'tsconfig.test.json',
    ]);
  }, 600_000);

  it('npm install and npm test pass out of the box, the stubs pending', () => {
    // No registry flag: the project's .npmrc alone names the local registry.
    const install = npm(['install'], project, 900_000);
    expect(install.status, install.out).toBe(0);
    // The project's npm scripts run on the Node.js it pins (the `node` devDependency), not the machine's own.
    const pinned = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).devDependencies.node as string;
    const nodeVersion = npm(['exec', '--', 'node', '-p', 'process.versions.node'], project);
    expect(nodeVersion.out.trim().split('.')[0]).toBe(/\d+/.exec(pinned)![0]);
    const build = npm(['run', 'build'], project);
    expect(build.status, build.out).toBe(0);
    const test = npm(['test'], project);
    expect(test.status, test.out).toBe(0);
    expect(test.out).toMatch(/Tests\s+\d+ passed \| \d+ skipped/);
    const conformance = run(
      process.execPath,
      [join(project, 'node_modules/@ccm-kit/cli/dist/main.js'), 'conformance'],
      project,
    );
    expect(conformance.status, conformance.out).toBe(0);
    expect(conformance.out).toMatch(/provider conformance: \d+ passed, [1-9]\d* pending, 0 broke/);
    expect(conformance.out).toContain(
      'PENDING  instancesV2 › instanceExists is true for existingNode — instanceExists not implemented',
    );
  }, 1_200_000);

  it('with the stubs filled in: conformance passes, and ccm-kit dev initializes Nodes, serves a LoadBalancer and restarts on a change', async () => {
    writeFileSync(join(project, 'src/provider.ts'), IN_MEMORY_PROVIDER);
    const cli = join(project, 'node_modules/@ccm-kit/cli/dist/main.js');
    const conformance = run(process.execPath, [cli, 'conformance'], project);
    expect(conformance.status, conformance.out).toBe(0);
    expect(conformance.out).toMatch(/provider conformance: \d+ passed, 0 pending, 0 broke/);
    const dev = startDev(
      [
        cli,
        'dev',
        '--cloud-config',
        'dev/cloud-config.yaml',
        '--nodes',
        '2',
        '--zones',
        'a,b',
        '--service',
        '--duration',
        '240',
      ],
      project,
    );
    try {
      // Routes: on for dev's own control plane, with the dev Nodes' Pod CIDRs; this provider has no Routes,
      // and the first lines say so.
      await dev.waitFor(
        /\[ccm-kit dev\] routes: --configure-cloud-routes=true --cluster-cidr=10\.244\.0\.0\/16, Pod CIDRs dev-node-1 10\.244\.1\.0\/24, dev-node-2 10\.244\.2\.0\/24/,
        'routes announced',
      );
      await dev.waitFor(/\[ccm-kit dev\] routes: off — the provider has no Routes facet/, 'routes off, and why');
      await dev.waitFor(/nodes initialized: 2\/2 {3}load balancers served: 1\/1/, 'ready');
      timings.push([
        'npm create → a LoadBalancer with an ingress IP (machine time, the provider code written by the test)',
        Date.now() - createdAt,
      ]);
      expect(dev.output()).toMatch(/default\/dev-lb +LoadBalancer +\S+ +203\.0\.113\.10/);
      expect(dev.output()).toMatch(/dev-node-1 +acme:\/\/dev-node-1 +dev-1a +a1\.small/);

      // The vendor edits the provider while dev runs: another zone, another address range.
      const edited = IN_MEMORY_PROVIDER.replace("'203.0.113.'", "'198.51.100.'").replace(
        "this.config.region + 'a'",
        "this.config.region + 'b'",
      );
      expect(edited).toContain("'198.51.100.'");
      expect(edited).toContain("this.config.region + 'b'");
      writeFileSync(join(project, 'src/provider.ts'), edited);
      await dev.waitFor(
        /\[ccm-kit dev\] provider\.ts changed: building \(npm run build --silent\) and restarting the CCM/,
        'restart announced',
      );
      await dev.waitFor(/\[ccm-kit dev\] the CCM is running again \(start 2, pid \d+\)/, 'running again');
      // Only the rebuilt CCM hands out 198.51.100.x: its service controller re-ensures dev-lb at start.
      await dev.waitFor(/default\/dev-lb +LoadBalancer +\S+ +198\.51\.100\.10/, 'dev-lb re-ensured by the new CCM');
      const kubeconfigPath = /kubectl --kubeconfig (\S+)/.exec(dev.output())?.[1];
      expect(kubeconfigPath, dev.output()).toBeDefined();
      const podCIDR = kubectl(kubeconfigPath!, ['get', 'node', 'dev-node-2', '-o', 'jsonpath={.spec.podCIDR}']);
      expect(podCIDR.stdout).toBe('10.244.2.0/24');
      const created = kubectl(kubeconfigPath!, ['apply', '-f', '-'], AFTER_THE_CHANGE);
      expect(created.status, created.stderr).toBe(0);
      await dev.waitFor(
        /default\/dev-lb-2 +LoadBalancer +\S+ +198\.51\.100\.11/,
        'the new Service served by the new CCM',
      );
      await dev.waitFor(/node-3 +acme:\/\/node-3 +dev-1b +a1\.small/, 'the new Node initialized by the new CCM');
    } finally {
      const status = await dev.stop();
      expect(status, dev.output()).toBe(0);
    }
  }, 300_000);

  it('ccm-kit build bundles the CCM into dist/bundle/ (main.mjs and its chunks), which runs without node_modules', () => {
    const cli = join(project, 'node_modules/@ccm-kit/cli/dist/main.js');
    const built = run(process.execPath, [cli, 'build'], project);
    expect(built.status, built.out).toBe(0);
    const alone = join(work, 'bundle-only');
    const copy = run('cp', ['-r', join(project, 'dist/bundle'), alone], work);
    expect(copy.status, copy.out).toBe(0);
    const help = run(process.execPath, [join(alone, 'main.mjs'), '--help'], alone);
    expect(help.status, help.out).toBe(0);
    expect(help.out).toContain('--cloud-provider');
    const unknown = run(process.execPath, [join(alone, 'main.mjs'), '--no-such-flag'], alone);
    expect(unknown.out).toContain('unknown flag: --no-such-flag');
    expect(unknown.status).toBe(1);
    const version = run(process.execPath, [join(alone, 'main.mjs'), '--version'], alone);
    expect(version.out).toMatch(/^acme-cloud-controller-manager v0\.1\.0/);

    // The image's last stage (decision 0417), without a container engine: its ENV lines and its fill step, with
    // /app as the copied bundle; a start then reads the chunks it loads from the cache.
    const dockerfile = readFileSync(join(project, 'Dockerfile'), 'utf8');
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [, name, value] of finalStage.matchAll(/^ENV (\w+)=(\S+)$/gm))
      env[name!] = value!.replaceAll('/app', alone);
    expect(env.NODE_COMPILE_CACHE).toBe(join(alone, '.compile-cache'));
    const fillStep = /^RUN node (\/app\/\S+)$/m.exec(finalStage)?.[1];
    expect(fillStep).toBe('/app/fill-compile-cache.mjs');
    const fill = spawnSync(process.execPath, [fillStep!.replace('/app', alone)], { cwd: alone, encoding: 'utf8', env });
    expect(fill.status, fill.stderr).toBe(0);
    expect(fill.stdout).toMatch(/^filled Node's compile cache in .* with (\d+) of \1 chunks$/m);
    const started = spawnSync(process.execPath, [join(alone, 'main.mjs'), '--help'], {
      cwd: alone,
      encoding: 'utf8',
      env: { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
    });
    expect(started.status, started.stderr).toBe(0);
    const chunkLines = started.stderr.split('\n').filter((l) => /code cache for ESM \S+\/chunks\//.test(l));
    expect(chunkLines.length).toBeGreaterThan(0);
    expect(chunkLines.filter((l) => !l.includes('was accepted'))).toEqual([]);
  }, 300_000);
});

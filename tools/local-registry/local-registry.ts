/**
 * A real npm registry on loopback (Verdaccio) with every ccm-kit package published to it, so that a build can
 * be tried exactly as a vendor will meet it after release: `npm create ccm-kit@<version> --registry <url>`, then
 * `npm install` from that registry. Packages ccm-kit does not publish come from registry.npmjs.org through
 * Verdaccio's uplink; ccm-kit's own names are served only from what was published here.
 *
 * `npm run registry:local` starts it on 127.0.0.1:4873 (`--port`), publishes the packages as built now
 * (`tsc -b` first) and runs until Ctrl-C; packages/create-ccm-kit/test/vendor-flow.int.test.ts uses
 * {@link startLocalRegistry} and {@link publishPackages}. docs/getting-started.md and docs/releasing.md say how.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The packages ccm-kit publishes, in dependency order (versions in lockstep: docs/releasing.md). */
export const PUBLISHED = ['cloud-provider', 'runtime', 'controllers', 'app', 'testing', 'cli', 'create-ccm-kit'];

/** A running registry. */
export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** A userconfig file with a token for this registry (`npm publish` needs one; Verdaccio accepts anyone here). */
  npmrc: string;
  stop(): Promise<void>;
}

/** Verdaccio's configuration: local-only @ccm-kit/* and create-ccm-kit, everything else through npmjs. */
function config(storage: string, port: number): string {
  return `storage: ${JSON.stringify(storage)}
listen: 127.0.0.1:${port}
max_body_size: 100mb
log: { type: stdout, format: pretty, level: warn }
uplinks:
  npmjs:
    url: https://registry.npmjs.org/
    timeout: 60s
packages:
  '@ccm-kit/*':
    access: $all
    publish: $all
  'create-ccm-kit':
    access: $all
    publish: $all
  '@*/*':
    access: $all
    proxy: npmjs
  '**':
    access: $all
    proxy: npmjs
`;
}

async function waitUntilUp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}):\n${output()}`);
    try {
      if ((await fetch(new URL('-/ping', url))).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`verdaccio did not answer on ${url} within 60 s:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Starts Verdaccio on 127.0.0.1:`port` (0: a free one is not chosen by Verdaccio, so pass a port) with its
 * storage in `dir` (default: a new temporary directory, removed on stop).
 * @throws Error with Verdaccio's output when it does not come up within 60 s.
 */
export async function startLocalRegistry(options: { port: number; dir?: string }): Promise<LocalRegistry> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'ccm-kit-registry-'));
  const storage = join(dir, 'storage');
  mkdirSync(storage, { recursive: true });
  const configFile = join(dir, 'config.yaml');
  writeFileSync(configFile, config(storage, options.port));
  const url = `http://127.0.0.1:${options.port}/`;
  const npmrc = join(dir, 'npmrc');
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${options.port}/:_authToken=local-registry\n`);
  // Verdaccio (a root devDependency, 6.8.0 with node-fetch pinned to 2.7.0 by an override) runs as a child process.
  const bin = join(dirname(createRequire(import.meta.url).resolve('verdaccio/package.json')), 'bin/verdaccio');
  const child = spawn(process.execPath, [bin, '--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  await waitUntilUp(url, child, () => out);
  return {
    url,
    npmrc,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `npm publish` of every package of {@link PUBLISHED} to the registry, as built now (run `tsc -b` first).
 * @returns the version published (one for all: versions are in lockstep).
 * @throws Error with npm's output when a publish fails or the versions differ.
 */
export function publishPackages(registry: LocalRegistry): string {
  const versions = new Set<string>();
  for (const name of PUBLISHED) {
    const dir = join(repoRoot, 'packages', name);
    versions.add((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version);
    const r = spawnSync(
      'npm',
      ['publish', '--registry', registry.url, '--userconfig', registry.npmrc, '--tag', 'latest'],
      {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, npm_config_update_notifier: 'false', npm_config_provenance: 'false' },
      },
    );
    if (r.status !== 0) throw new Error(`npm publish of packages/${name} failed:\n${r.stdout}${r.stderr}`);
  }
  if (versions.size !== 1)
    throw new Error(`versions are not in lockstep: ${[...versions].join(', ')} (docs/releasing.md)`);
  return [...versions][0]!;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '4873' } } });
  const registry = await startLocalRegistry({ port: Number(values.port) });
  try {
    const version = publishPackages(registry);
    console.log(`ccm-kit ${version} published to ${registry.url} (Verdaccio; other packages from registry.npmjs.org).

  npm create ccm-kit@${version} my-ccm --registry ${registry.url} -- --provider mycloud --yes
  cd my-ccm && npm install && npm test   # the project's .npmrc names the registry

Ctrl-C stops the registry and deletes what was published.`);
    await new Promise<void>((r) => {
      process.once('SIGINT', r);
      process.once('SIGTERM', r);
    });
  } finally {
    await registry.stop();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
